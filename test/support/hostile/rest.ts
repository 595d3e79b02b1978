// REST requests from intents, written byte for byte (odd path segments, repeated query parameters, raw bodies) and sent.
import { request } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import fc from 'fast-check';
import type { RawInput } from '../../../src/surfaces/pipeline.js';
import type { Route } from '../../../src/surfaces/registry.js';
import { intents, type Intent } from './inputs.js';
import { mutating, wouldPass } from './mutation.js';
import { jsonRefused, multipartOf, multipartRefused, poisoned, streamPoisons, streamsJson, takesMultipart, withBase64Data, type StreamPoison } from './streamed.js';
import { hostileString, hostileValue } from './values.js';

export interface RestRequest {
  method: string;
  path: string;
  body?: Buffer;
  contentType?: string;
}

/** Path segments routers and proxies have mishandled: traversal, encoded NUL and slashes, bad escapes, raw non-UTF-8 bytes. */
const ODD_SEGMENTS = ['..', '.', '%2e%2e', '%00', 'a%00b', 'a%2Fb', '%2F', '%5C', '%E0%A4%A', '%FF', '%C0%AF', '\u00ff\u00fe', '', '%20', '__proto__', 'constructor', ';x=1', '*',
  '~', 'x'.repeat(600), 'y'.repeat(6000), 'User%3Au1', 'Doc:d1'];

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
/** encodeURIComponent, or null for text it cannot encode (lone surrogates). */
const encoded = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return null;
  }
};

/** How a body is written: JSON of the intent, multipart (routes that take it), or bytes JSON parsers and decoders choke on. */
type BodyMode = 'json' | 'invalid-utf8' | 'truncated' | 'garbage' | 'text/plain' | 'ndjson' | 'multipart';

/**
 * `base64`: a streamed upload's `data` sent as the base64 of its text (so it gets past the decoder); `filename`: a
 * multipart file part's name; `poison`: what a streamed body that would be taken is poisoned with (see restSafe);
 * `bareQuery`: a streamed route's case sent without a query, so its body gets to the service.
 */
export interface RestCase {
  intent: Intent;
  odd: Array<string | null>;
  repeat: unknown[];
  bodyMode: BodyMode;
  garbage: Uint8Array;
  oversize: boolean;
  base64: boolean;
  filename: string | null;
  poison: StreamPoison;
  bareQuery: boolean;
}

const MODES: BodyMode[] = ['json', 'json', 'json', 'json', 'invalid-utf8', 'truncated', 'garbage', 'text/plain', 'ndjson'];

export const restCases = (r: Route, known: string[]): fc.Arbitrary<RestCase> =>
  fc.record({
    intent: intents(r, known),
    odd: fc.array(fc.option(fc.constantFrom(...ODD_SEGMENTS), { freq: 3 }), { minLength: 3, maxLength: 3 }),
    repeat: fc.array(hostileValue, { maxLength: 2 }),
    bodyMode: fc.constantFrom<BodyMode>(...MODES, ...(takesMultipart(r) ? ['multipart', 'multipart', 'multipart'] as const : [])),
    garbage: fc.uint8Array({ minLength: 1, maxLength: 64 }),
    oversize: fc.integer({ min: 0, max: 24 }).map((n) => n === 0),
    base64: fc.boolean(),
    filename: fc.option(hostileString, { freq: 3 }),
    poison: streamPoisons,
    bareQuery: fc.boolean(),
  });

/**
 * Node refuses a request line past 16 KB before any route sees it, so query values are kept short enough to get
 * through (at most REPEATS repetitions of a parameter, each value at most VALUE_CHARS); `oversize` then goes past it.
 */
const REPEATS = 20;
const VALUE_CHARS = 400;

function querySearch(query: unknown, repeat: unknown[], oversize: boolean): string {
  const parts: string[] = [];
  const put = (k: string, v: unknown) => parts.push(`${encoded(k.slice(0, VALUE_CHARS)) ?? '%FF'}=${encoded(asText(v).slice(0, VALUE_CHARS)) ?? '%ED%A0%80'}`);
  if (oversize) parts.push(`long=${'z'.repeat(20_000)}`);
  if (query && typeof query === 'object' && !Array.isArray(query)) {
    const entries = Object.entries(query);
    for (const [k, v] of entries) for (const one of (Array.isArray(v) && v.length ? v : [v]).slice(0, REPEATS)) put(k, one);
    // The same parameter again: the server sees an array where it expects one value.
    if (entries.length) { for (const v of repeat) put(entries[0]![0], v); }
  } else if (query !== undefined) {
    parts.push(encoded(asText(query).slice(0, VALUE_CHARS)) ?? '%FF');
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function bodyOf(c: RestCase, value: unknown): { body?: Buffer; contentType?: string } {
  if (value === undefined) return {};
  const json = Buffer.from(JSON.stringify(value) ?? 'null');
  switch (c.bodyMode) {
    case 'json':
      return { body: json, contentType: 'application/json' };
    // Bytes that are not UTF-8 inside the JSON text: an overlong slash and a lone continuation byte, in a string.
    case 'invalid-utf8':
      return {
        body: Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc0, 0xaf, 0x80, 0xff]), Buffer.from('",'),
          json.subarray(1).length > 1 ? json.subarray(1) : Buffer.from('"y":1}')]),
        contentType: 'application/json',
      };
    case 'truncated':
      return { body: json.subarray(0, Math.max(1, json.length - 1)), contentType: 'application/json' };
    case 'garbage':
      return { body: Buffer.from(c.garbage), contentType: 'application/json' };
    case 'text/plain':
      return { body: json, contentType: 'text/plain' };
    case 'ndjson':
      return { body: Buffer.concat([json, Buffer.from('\n'), Buffer.from(c.garbage)]), contentType: 'application/x-ndjson' };
    case 'multipart':
      return multipartOf(value, c.filename);
  }
}

/**
 * The request on the wire, and the input the pipeline will see from it (null when Express cannot even read it).
 * `streamed`: the body goes to the route unparsed (an upload's JSON or multipart), and whether its service refuses
 * it whatever else it holds.
 */
export function restRequest(r: Route, c: RestCase, bodyValue: unknown = streamedValue(r, c)): { req: RestRequest; raw: RawInput | null; streamed?: { refused: boolean } } {
  const params = (c.intent.params && typeof c.intent.params === 'object' ? c.intent.params : {}) as Record<string, unknown>;
  let i = 0;
  let readable = true;
  const decodedParams: Record<string, string> = {};
  const path = r.http.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const odd = c.odd[i++ % c.odd.length];
    const seg = odd ?? (params[name] === undefined ? '' : encoded(asText(params[name])) ?? '%ED%A0%80');
    try {
      decodedParams[name] = decodeURIComponent(seg);
    } catch {
      readable = false;
    }
    if (seg === '') readable = false;
    return seg;
  });
  const bare = c.bareQuery && (streamsJson(r) || takesMultipart(r));
  const search = bare ? '' : querySearch(c.intent.query, c.repeat, c.oversize);
  const written = bodyOf(c, bodyValue);
  const { body, contentType } = written;
  const req: RestRequest = { method: r.http.method.toUpperCase(), path: path + search, body, contentType };
  const query = parseQuery(search.slice(1));
  if (body && c.bodyMode === 'multipart') {
    return { req, raw: readable ? { params: decodedParams, query } : null, streamed: { refused: multipartRefused(written as ReturnType<typeof multipartOf>) } };
  }
  if (body && streamsJson(r) && c.bodyMode === 'json') {
    return { req, raw: readable ? { params: decodedParams, query } : null, streamed: { refused: jsonRefused(r, bodyValue) } };
  }
  let rawBody: unknown;
  if (body && contentType === 'application/json') {
    try {
      rawBody = JSON.parse(body.toString('utf8'));
    } catch {
      readable = false;
    }
    // Express's JSON parser takes only objects and arrays at the top.
    if (rawBody === null || typeof rawBody !== 'object') readable = false;
  } else if (body) readable = false;
  return { req, raw: readable ? { params: decodedParams, query, body: rawBody } : null };
}

/** The body as sent: a streamed upload's `data` as base64 half the time, so the parsers pass it on. */
const streamedValue = (r: Route, c: RestCase) => ((streamsJson(r) || takesMultipart(r)) && c.base64 ? withBase64Data(c.intent.body) : c.intent.body);

/**
 * A route's case made safe to send: a mutating route gets a `$` query key, which the pipeline refuses on every route,
 * unless its input is known to fail validation anyway (unreadable bodies are poisoned too: a stream route reads them).
 * A streamed body (an upload) is poisoned inside instead, so it still reaches the service that reads it: one of its
 * own string fields is given text the store cannot hold (NUL, a lone surrogate), which the service must refuse.
 */
export function restSafe(r: Route, c: RestCase): RestRequest {
  const { req, raw, streamed } = restRequest(r, c);
  if (!mutating(r)) return req;
  if (streamed && raw) {
    if (!wouldPass(r, raw, ['params', 'query']) || streamed.refused) return req;
    const text = c.bodyMode === 'multipart' ? c.poison.multipart : c.poison.json;
    return restRequest(r, c, poisoned(r, c.intent.body, c.poison, text)).req;
  }
  if (raw && !wouldPass(r, raw)) return req;
  return { ...req, path: `${req.path}${req.path.includes('?') ? '&' : '?'}%24poison=1` };
}

export interface RestAnswer {
  status: number;
  text: string;
  retryAfter: string | null;
  ms: number;
}

/** Sends it with node:http, which writes the path as given (fetch would normalise `..` and re-encode). */
export function send(base: string, req: RestRequest, headers: Record<string, string>, timeoutMs = 10_000): Promise<RestAnswer> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (a: Omit<RestAnswer, 'ms'>) => resolve({ ...a, ms: Math.round(performance.now() - started) });
    const h: Record<string, string | number> = { ...headers };
    if (req.body) {
      h['content-type'] = req.contentType ?? 'application/json';
      h['content-length'] = req.body.length;
    }
    const out = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers: h, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter: String(res.headers['retry-after'] ?? '') || null }));
      res.on('error', (e) => done({ status: 0, text: `response error: ${e.message}`, retryAfter: null }));
    });
    out.on('timeout', () => {
      out.destroy(new Error('timeout'));
    });
    out.on('error', (e) => done({ status: 0, text: `request error: ${e.message}`, retryAfter: null }));
    out.end(req.body);
  });
}
