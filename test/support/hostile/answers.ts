// Whether an answer is one the service documents (DESIGN.md section 6 and each transport's mapping of it), as a verdict.
import { status as grpcStatus } from '@grpc/grpc-js';
import { CATALOG, type ErrorCode } from '../../../src/errors.js';

/** An answer judged: its status as HTTP would say it, and why it is not a documented one (empty when it is). */
export interface Verdict {
  status: number;
  code?: string;
  problem?: string;
}

const known = (code: unknown): code is ErrorCode => typeof code === 'string' && code in CATALOG;
const keys = (o: object) => Object.keys(o).sort().join(',');

/** A catalog error body of the surface: admin `{status, code, message, details}`, client `{code, message}`. */
export function errorBody(surface: 'admin' | 'client', status: number, body: unknown): Verdict {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object') return { status, problem: 'no JSON error body' };
  if (!known(b.code)) return { status, problem: `code ${String(b.code)} is not in the catalog` };
  const code = b.code;
  if (CATALOG[code][0] !== status) return { status, code, problem: `${code} is ${CATALOG[code][0]} in the catalog, answered ${status}` };
  if (typeof b.message !== 'string') return { status, code, problem: 'no message' };
  if (surface === 'admin' && (keys(b) !== 'code,details,message,status' || b.status !== status || !Array.isArray(b.details))) {
    return { status, code, problem: `admin error body has ${keys(b)}` };
  }
  if (surface === 'client' && keys(b) !== 'code,message') return { status, code, problem: `client error body has ${keys(b)}` };
  return { status, code };
}

/** An HTTP answer: 2xx, or 4xx/5xx with the surface's error body (Retry-After on 429). */
export function httpVerdict(surface: 'admin' | 'client', status: number, text: string, retryAfter: string | null): Verdict {
  if (status >= 200 && status < 300) return { status };
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch { /* judged below */ }
  const v = errorBody(surface, status, body);
  if (!v.problem && status === 429 && !/^\d+$/.test(retryAfter ?? '')) return { ...v, problem: '429 without Retry-After' };
  if (!v.problem && status < 400) return { ...v, problem: `status ${status}` };
  return v.problem ? { ...v, problem: `${v.problem}: ${text.slice(0, 300)}` } : v;
}

/** A GraphQL answer: data, or errors each with a catalog code and its status (or the pipeline's HTTP error body). */
export function graphqlVerdict(surface: 'admin' | 'client', status: number, text: string, retryAfter: string | null): Verdict {
  let body: { data?: unknown; errors?: Array<{ extensions?: { code?: unknown; status?: unknown } }>; code?: unknown } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    return { status, problem: `not JSON: ${text.slice(0, 200)}` };
  }
  if (body && typeof body === 'object' && 'code' in body) return httpVerdict(surface, status, text, retryAfter);
  if (status >= 500) return { status, problem: `HTTP ${status}: ${text.slice(0, 300)}` };
  const errors = body?.errors ?? [];
  if (!errors.length) return status < 300 && body?.data ? { status } : { status, problem: `neither data nor errors: ${text.slice(0, 200)}` };
  let worst: Verdict = { status: 0 };
  for (const e of errors) {
    const code = e.extensions?.code;
    if (!known(code)) return { status, problem: `error code ${String(code)} is not in the catalog: ${text.slice(0, 300)}` };
    if (e.extensions?.status !== CATALOG[code][0]) return { status, code, problem: `${code} with status ${String(e.extensions?.status)}` };
    if (CATALOG[code][0] > worst.status) worst = { status: CATALOG[code][0], code };
  }
  return worst;
}

/** A JSON-RPC answer of the MCP tool server: a tool result, a tool error carrying the admin error body, or a protocol error. */
export function mcpVerdict(status: number, text: string, retryAfter: string | null, toolExists = true): Verdict {
  let body: { result?: { isError?: boolean; content?: Array<{ text?: string }> }; error?: { code?: unknown }; code?: unknown } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    return { status, problem: `not JSON: ${text.slice(0, 200)}` };
  }
  if (status >= 500) return { status, problem: `HTTP ${status}: ${text.slice(0, 300)}` };
  if (body && 'code' in body) return httpVerdict('admin', status, text, retryAfter);
  // JSON-RPC's own errors for envelopes that are not a valid request (-32700 parse error to -32600 invalid request, -32601/-32602).
  if (body?.error) {
    const c = Number(body.error.code);
    return c <= -32600 && c >= -32700 ? { status: 400, code: `JSON-RPC ${c}` } : { status: 500, problem: `JSON-RPC error ${c}: ${text.slice(0, 300)}` };
  }
  const result = body?.result;
  if (!result) return { status, problem: `no result: ${text.slice(0, 200)}` };
  if (!result.isError) return { status: 200 };
  // A tool that does not exist has no route to answer for it: the SDK says so as MCP's invalid-params error.
  if (!toolExists && /^MCP error -32602: Tool .* not found$/s.test(result.content?.[0]?.text ?? '')) return { status: 400, code: 'JSON-RPC -32602' };
  let inner: { status?: number } | null = null;
  try {
    inner = JSON.parse(result.content?.[0]?.text ?? '');
  } catch {
    return { status: 500, problem: `tool error is not the REST body: ${text.slice(0, 300)}` };
  }
  const v = errorBody('admin', Number(inner?.status), inner);
  return v.problem ? { ...v, problem: `${v.problem}: ${text.slice(0, 300)}` } : v;
}

/** The HTTP status of each gRPC status code the service maps its catalog to (grpc/status.ts); the rest are failures. */
const GRPC_AS_HTTP: Partial<Record<number, number>> = {
  [grpcStatus.INVALID_ARGUMENT]: 400,
  [grpcStatus.UNAUTHENTICATED]: 401,
  [grpcStatus.PERMISSION_DENIED]: 403,
  [grpcStatus.NOT_FOUND]: 404,
  [grpcStatus.FAILED_PRECONDITION]: 409,
  [grpcStatus.RESOURCE_EXHAUSTED]: 429,
  [grpcStatus.UNAVAILABLE]: 503,
  [grpcStatus.INTERNAL]: 500,
};

/** A gRPC status: OK, or a mapped code with the catalog code in the `error-code` trailer. */
export function grpcVerdict(code: number, catalog: string | undefined, details: string): Verdict {
  if (code === grpcStatus.OK) return { status: 200 };
  const http = GRPC_AS_HTTP[code];
  if (http === undefined) return { status: 500, problem: `gRPC status ${grpcStatus[code]}: ${details.slice(0, 300)}` };
  if (!known(catalog)) return { status: http, problem: `gRPC ${grpcStatus[code]} without a catalog code: ${details.slice(0, 300)}` };
  const s = CATALOG[catalog][0];
  // A 5xx is the tally's to judge: a problem, unless it is the documented INDEX_BEHIND after a read's bounded wait.
  if (s >= 500) return { status: s, code: catalog };
  return GRPC_AS_HTTP[code] === s || (code === grpcStatus.FAILED_PRECONDITION && (s === 409 || s === 422)) || (code === grpcStatus.RESOURCE_EXHAUSTED && (s === 413 || s === 429))
    ? { status: s, code: catalog }
    : { status: s, code: catalog, problem: `${catalog} sent as gRPC ${grpcStatus[code]}` };
}

/** A realtime socket reply: one of the documented messages, or `{type: "error", code, message, id?}` with a catalog code. */
export function socketVerdict(msg: Record<string, unknown>): Verdict {
  if (msg.type !== 'error') {
    return ['subscribed', 'unsubscribed', 'pong'].includes(String(msg.type)) ? { status: 200 }
      : { status: 200, problem: `unexpected message ${JSON.stringify(msg).slice(0, 200)}` };
  }
  if (!known(msg.code)) return { status: 500, problem: `error code ${String(msg.code)} is not in the catalog` };
  const s = CATALOG[msg.code][0];
  const extra = Object.keys(msg).filter((k) => !['type', 'id', 'code', 'message'].includes(k));
  if (typeof msg.message !== 'string' || extra.length) return { status: s, code: msg.code, problem: `error message has ${keys(msg)}` };
  return s >= 500 ? { status: s, code: msg.code, problem: `${msg.code}: ${String(msg.message)}` } : { status: s, code: msg.code };
}
