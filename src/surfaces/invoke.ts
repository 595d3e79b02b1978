// Runs one registry route on raw input, the same way for every surface: authentication, storable input, strict zod parsing.
import type { z } from 'zod';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AdminAuth, AdminPrincipal } from '../services/admin-auth.js';
import type { ClientAuth } from '../services/client-auth.js';
import { storeUnavailable } from '../stores/unavailable.js';
import type { Reply, Route } from './registry.js';
import { unstorable } from './storable.js';

export interface RawInput {
  params?: unknown; query?: unknown; body?: unknown;
  headers: Record<string, string | undefined>;
  /** An admin already authenticated for this request (the tool server authenticates once per connection request). */
  principal?: AdminPrincipal;
  /** The unparsed body of a `streamBody` route (the body is then not parsed). */
  stream?: AsyncIterable<Buffer | string>;
}
export interface InvokeDeps { auth: AdminAuth; clientAuth: ClientAuth; checkReplies?: boolean }

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) {
    if (value && typeof value === 'object' && Object.keys(value).length > 0) {
      throw new AppError('VALIDATION_FAILED', `This route takes no ${where}`, Object.keys(value).map((k) => ({ path: `${where}.${k}`, message: 'unknown field' })));
    }
    return {} as T;
  }
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  throw new AppError('VALIDATION_FAILED', `Invalid ${where}`,
    r.error.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message })));
}

export async function invoke(r: Route, raw: RawInput, deps: InvokeDeps): Promise<Reply> {
  const principal = r.auth === 'admin'
    ? raw.principal ?? await deps.auth.authenticate({ masterkey: raw.headers.masterkey, authorization: raw.headers.authorization })
    : null;
  const user = r.auth === 'user' ? await deps.clientAuth.verify(raw.headers.authorization) : null;
  // Whether the token was revoked is asked of Redis on every call. A read runs meanwhile and its answer is
  // held until the token is known to be live; a change waits for that before it starts.
  const live = user ? deps.clientAuth.live(user) : null;
  live?.catch(() => undefined); // awaited below; this only keeps an early rejection from counting as unhandled
  if (live && r.method !== 'get') await live;
  for (const [where, value] of [['params', raw.params], ['query', raw.query], ['body', raw.body]] as const) {
    const bad = unstorable(value, where);
    if (bad) throw new AppError('VALIDATION_FAILED', `Invalid ${where}: ${bad.path} ${bad.message}`, [bad]);
  }
  const params = parse(r.params, raw.params, 'params');
  const query = parse(r.query, raw.query, 'query');
  const body = raw.stream ? undefined as never : parse(r.body, raw.body, 'body');
  const outcome = r.handle({ params, query, body, principal, user, headers: raw.headers, stream: raw.stream })
    .then((reply) => ({ reply }), (error: unknown) => ({ error }));
  if (live) await live;
  const done = await outcome;
  if ('error' in done) throw done.error;
  if (deps.checkReplies) conforms(r, done.reply);
  return done.reply;
}

/** Throws when a JSON reply, as the client will read it, does not match the route's registered output. */
function conforms(r: Route, reply: Reply): void {
  if (reply.stream || reply.text !== undefined) return;
  const sent: unknown = JSON.parse(JSON.stringify(reply.body ?? {}));
  const checked = r.output.safeParse(sent);
  if (!checked.success) {
    const where = checked.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new Error(`${r.method.toUpperCase()} ${r.path} replied outside its registered output: ${where}`);
  }
}

/** The catalog error for anything a route threw: store outages are 503 (retry is safe), the rest is logged as a bug. */
export function asAppError(e: unknown, log: Logger, label: string): AppError {
  if (e instanceof AppError) return e;
  const store = storeUnavailable(e);
  if (store) {
    log.warn({ err: (e as Error).message, route: label }, `${store} unavailable`);
    // A write may have been committed before the outage hit; retrying it is safe (writes are idempotent).
    return new AppError('STORE_UNAVAILABLE', `${store} is unavailable; retry shortly (writes are safe to retry)`);
  }
  log.error({ err: e, route: label }, 'unhandled error');
  return new AppError('INTERNAL');
}

/** A streamed reply as one string, for surfaces that answer in one piece (MCP, GraphQL); refused past `max` characters. */
export async function collected(reply: Reply, max = 32 * 1024 * 1024): Promise<Reply> {
  if (!reply.stream) return reply;
  let text = '';
  for await (const piece of reply.stream) {
    text += piece;
    if (text.length > max) throw new AppError('PAYLOAD_TOO_LARGE', `The answer exceeds ${max} characters here; ask the HTTP route, which streams it`);
  }
  const type = reply.headers?.['Content-Type'] ?? '';
  return type.startsWith('application/json') ? { ...reply, stream: undefined, body: JSON.parse(text) } : { ...reply, stream: undefined, text };
}
