// gRPC requests generated from the proto's own message types, and raw bytes that are not a message at all.
import { credentials, makeGenericClientConstructor, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { grpcBindings } from '../../../src/surfaces/grpc/bindings.js';
import { PROTO_FILE, SERVICE } from '../../../src/surfaces/grpc/proto.js';
import type { Registry } from '../../../src/surfaces/registry.js';
import { PLAUSIBLE } from './inputs.js';
import { mutating, POISON } from './mutation.js';
import { hostileString } from './values.js';

const root = protobuf.loadSync(PROTO_FILE);
const service = root.lookupService(SERVICE);

const INT32 = fc.oneof(fc.constantFrom(0, -1, 1, 25, 1000, 1001, 2 ** 31 - 1, -(2 ** 31)), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
const INT64 = fc.oneof(INT32, fc.constantFrom(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 40), fc.constantFrom('9223372036854775807', '-9223372036854775808'));
const text = (known: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PLAUSIBLE, ...known) }, { weight: 2, arbitrary: hostileString });

function scalar(f: protobuf.Field, known: string[]): fc.Arbitrary<unknown> {
  if (f.resolvedType instanceof protobuf.Enum) {
    // Names the proto declares, and numbers it does not (proto3 enums are open: they arrive as plain numbers).
    return fc.oneof(fc.constantFrom(...Object.keys(f.resolvedType.values)), fc.constantFrom(7, 99, -1, 2 ** 31 - 1));
  }
  if (f.resolvedType instanceof protobuf.Type) return message(f.resolvedType, known);
  switch (f.type) {
    case 'string':
      return text(known);
    case 'int32':
    case 'sint32':
    case 'uint32':
      return INT32;
    case 'int64':
    case 'sint64':
    case 'uint64':
      return INT64;
    case 'bool':
      return fc.boolean();
    case 'bytes':
      return fc.uint8Array({ maxLength: 16 });
    default:
      return fc.constant(0);
  }
}

/** A message of the type: each field set or left at its default, lists short or past the routes' limits. */
export function message(t: protobuf.Type, known: string[], depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields = t.fieldsArray.map((f) => {
    f.resolve();
    let v: fc.Arbitrary<unknown>;
    if (depth > 2) v = fc.constant(undefined);
    else if (f instanceof protobuf.MapField) v = fc.dictionary(text(known), scalar(f, known), { maxKeys: 4 });
    else if (f.repeated) {
      v = fc.oneof({ weight: 4, arbitrary: fc.array(scalar(f, known), { maxLength: 4 }) }, { weight: 1,
        arbitrary: fc.array(scalar(f, known), { minLength: 101, maxLength: 1200 }) });
    }
    else v = scalar(f, known);
    return fc.option(v.map((x) => [f.name, x] as const), { freq: 4 });
  });
  return fc.tuple(...fields).map((es) => Object.fromEntries(es.filter((e) => e !== null && e[1] !== undefined) as Array<readonly [string, unknown]>));
}

export interface GrpcCase {
  req: Record<string, unknown>;
  bytes: Uint8Array | null;
}

/** Typed requests mostly; now and then bytes that may not decode as the request type at all. */
export const grpcCases = (method: string, known: string[]): fc.Arbitrary<GrpcCase> =>
  fc.record({
    req: message(service.methods[method]!.resolvedRequestType ?? root.lookupType(service.methods[method]!.requestType), known),
    bytes: fc.option(fc.uint8Array({ minLength: 1, maxLength: 200 }), { freq: 6 }),
  });

/**
 * A first byte no message decodes past: field 15 (no request type has one, so the decoder must skip it) with wire type
 * 7, which does not exist. (A field the type declares would be read by its declared type whatever the wire type says.)
 */
const UNDECODABLE = Uint8Array.from([0x7f]);

/**
 * What is sent for a case, as bytes. A mutating method's request gets a NUL in its first string field (the pipeline
 * refuses it), and its raw bytes start with a field that cannot decode, so no generated call can write.
 */
export function grpcBytes(registry: Registry, method: string, c: GrpcCase): Buffer {
  const m = service.methods[method]!;
  const type = m.resolvedRequestType ?? root.lookupType(m.requestType);
  const writes = mutating(registry.get('admin', grpcBindings(registry.all())[method]!.route));
  if (c.bytes) return Buffer.from(writes ? Uint8Array.from([...UNDECODABLE, ...c.bytes]) : c.bytes);
  return Buffer.from(type.encode(type.fromObject(writes ? poisoned(type, c.req) : c.req)).finish());
}

/**
 * The request the server decodes from what was sent, as JSON ('' when it does not decode): raw bytes may carry a
 * consistency or a revision, after which the read may wait for the index (the documented INDEX_BEHIND).
 */
export function grpcDecoded(method: string, bytes: Buffer): string {
  const m = service.methods[method]!;
  const type = m.resolvedRequestType ?? root.lookupType(m.requestType);
  try {
    return JSON.stringify(type.toObject(type.decode(bytes), { longs: String, enums: String }));
  } catch {
    return '';
  }
}

const plainString = (f: protobuf.Field) => f.type === 'string' && !f.repeated && !(f instanceof protobuf.MapField);

/**
 * The request with a NUL in its first string field; a request whose strings are all in a list of messages (WriteRelations'
 * updates) gets one more item with the NUL in its first string instead.
 */
function poisoned(type: protobuf.Type, req: Record<string, unknown>): Record<string, unknown> {
  const first = type.fieldsArray.find(plainString);
  if (first) return { ...req, [first.name]: POISON };
  const list = type.fieldsArray.find((f) =>
    f.repeated && f.resolve().resolvedType instanceof protobuf.Type
    && (f.resolvedType as protobuf.Type).fieldsArray.some(plainString)
  )!;
  const inner = (list.resolvedType as protobuf.Type).fieldsArray.find(plainString)!;
  const items = Array.isArray(req[list.name]) ? req[list.name] as unknown[] : [];
  return { ...req, [list.name]: [...items, { [inner.name]: POISON }] };
}

/** A client that sends bytes as they are, for every method of the service. */
export function rawClient(
  address: string,
): { call(method: string, bytes: Buffer, md: Metadata, timeoutMs: number): Promise<{ code: number; catalog?: string; details: string; ms: number }>; close(): void } {
  const Ctor = makeGenericClientConstructor({}, 'Raw');
  const client: Client = new Ctor(address, credentials.createInsecure());
  const id = (b: Buffer) => b;
  return {
    call(method, bytes, md, timeoutMs) {
      const m = service.methods[method]!;
      const path = `/${SERVICE}/${method}`;
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      const deadline = new Date(Date.now() + timeoutMs);
      const verdictOf = (e: ServiceError | null) => ({
        code: e?.code ?? 0,
        catalog: e?.metadata?.get('error-code')[0]?.toString(),
        details: e?.details ?? '',
        ms: ms(),
      });
      return new Promise((resolve) => {
        if (!m.responseStream) {
          client.makeUnaryRequest(path, id, id, bytes, md, { deadline }, (e) => resolve(verdictOf(e)));
          return;
        }
        // A stream is answered by its first message (a following Watch may then stay silent) or by its status.
        const stream = client.makeServerStreamRequest(path, id, id, bytes, md, { deadline });
        let settled = false;
        const settle = (v: ReturnType<typeof verdictOf>) => {
          if (!settled) {
            settled = true;
            resolve(v);
            stream.cancel();
          }
        };
        stream.on('data', () => settle(verdictOf(null)));
        stream.on('error', (e: ServiceError) => settle(verdictOf(e)));
        stream.on('status',
          (s: { code: number; details: string; metadata: Metadata }) =>
            settle({ code: s.code, catalog: s.metadata.get('error-code')[0]?.toString(), details: s.details, ms: ms() }));
      });
    },
    close: () => client.close(),
  };
}

export const GRPC_METHOD_NAMES = Object.keys(service.methods);
