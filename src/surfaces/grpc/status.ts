// gRPC's side of the neutral error: the catalog's HTTP status as a gRPC status code, the catalog code in a trailer.
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { AppError } from '../../errors.js';

const BY_HTTP: Record<number, status> = {
  400: status.INVALID_ARGUMENT,
  401: status.UNAUTHENTICATED,
  403: status.PERMISSION_DENIED,
  404: status.NOT_FOUND,
  // A version conflict, a lease taken, a write the model refuses: the system is not in a state to take it.
  409: status.FAILED_PRECONDITION,
  422: status.FAILED_PRECONDITION,
  413: status.RESOURCE_EXHAUSTED,
  429: status.RESOURCE_EXHAUSTED,
  503: status.UNAVAILABLE,
  500: status.INTERNAL,
};

/** Details sent with an error, at most this many bytes of JSON (whole items only, so it always parses). */
const DETAILS_MAX = 8192;

export function grpcStatus(e: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set('error-code', e.code);
  if (e.details.length) {
    const kept: unknown[] = [];
    let size = 2;
    for (const d of e.details) {
      size += Buffer.byteLength(JSON.stringify(d)) + 1;
      if (size > DETAILS_MAX) break;
      kept.push(d);
    }
    // Binary metadata (-bin): any text, non-ASCII included, travels as bytes.
    metadata.set('error-details-bin', Buffer.from(JSON.stringify(kept)));
  }
  // Messages may quote input; the status text travels as a header, which must be printable ASCII.
  return { code: BY_HTTP[e.status] ?? status.UNKNOWN, details: e.message.replace(/[^\x20-\x7e]/g, '?'), metadata };
}
