// The SDK's error: a call the service refused, with its error body (DESIGN.md section 6) as typed fields.
import type { ErrorCode } from '../errors.js';

/** The admin surface's body; the client surface sends only `code` and `message`. */
export interface ErrorBody {
  status?: number;
  code: ErrorCode;
  message: string;
  details?: unknown[];
}

const isErrorBody = (b: unknown): b is ErrorBody =>
  typeof b === 'object' && b !== null && typeof (b as ErrorBody).code === 'string' && typeof (b as ErrorBody).message === 'string';

export class AuthzApiError extends Error {
  override readonly name = 'AuthzApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The catalog code (`RELATION_NOT_ALLOWED`, ...), or `HTTP_<status>` when the answer had no error body (a proxy's page). */
  readonly code: ErrorCode | `HTTP_${number}`;
  /** What the admin surface adds (`[{ index, ... }]` for a refused update of a batch); empty on the client surface. */
  readonly details: unknown[];

  constructor(readonly response: Response, readonly body: unknown) {
    const parsed = isErrorBody(body) ? body : undefined;
    super(parsed?.message ?? `HTTP ${response.status} ${response.statusText}`.trim());
    this.status = response.status;
    this.code = parsed?.code ?? `HTTP_${response.status}`;
    this.details = parsed?.details ?? [];
  }
}
