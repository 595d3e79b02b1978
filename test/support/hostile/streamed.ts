// Bodies a route reads itself as they stream (uploads: JSON with base64 data, multipart): written so generated input
// gets past the base64 and multipart parsers into the service, and poisoned inside the body when it would be taken.
import fc from 'fast-check';
import { unstorable } from '../../../src/engine/storable.js';
import type { Route } from '../../../src/surfaces/registry.js';
import { bare, shapeOf } from './inputs.js';

/** Whether the route reads a JSON body itself (the pipeline sees none of it). */
export const streamsJson = (r: Route) => r.http.streamJson === true;
/** Whether the route takes a multipart body (its fields and file part read by the service). */
export const takesMultipart = (r: Route) => /^multipart\//.test(r.http.streamBody ?? '');

/** Text the document store cannot hold; a lone surrogate only where it survives the wire (JSON escapes it, UTF-8 cannot). */
export const unstorableText = (lone: boolean): fc.Arbitrary<string> =>
  fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), fc.boolean())
    .map(([a, b, surrogate]) => `${a}${surrogate && lone ? '\ud800' : '\u0000'}${b}`);

/** How a streamed body is poisoned: which of the body's string fields (by index) gets which unstorable text. */
export interface StreamPoison {
  at: number;
  json: string;
  multipart: string;
}
export const streamPoisons: fc.Arbitrary<StreamPoison> = fc.record({ at: fc.nat(), json: unstorableText(true), multipart: unstorableText(false) });

const plainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');

/** The body with its `data` as the base64 of its text, so uploads get past the base64 decoder. */
export function withBase64Data(body: unknown): unknown {
  if (!plainObject(body) || typeof body.data !== 'string') return body;
  return { ...body, data: Buffer.from(body.data).toString('base64') };
}

/**
 * Whether the service refuses this streamed JSON body whatever else it holds: not an object, an upload's member that
 * is not a scalar (its reader takes none), or a value or key it cannot store (checked before the members are validated).
 */
export function jsonRefused(r: Route, body: unknown): boolean {
  if (!plainObject(body)) return true;
  if (takesMultipart(r) && Object.values(body).some((v) => v !== null && typeof v === 'object')) return true;
  return unstorable(body, 'body') !== null;
}

/**
 * The body made otherwise acceptable (only the route's own members with values they take, `data` as base64), with one of its own string
 * fields (not `data`) set to text the store cannot hold: that text is then what the service has to refuse.
 */
export function poisoned(r: Route, body: unknown, p: StreamPoison, text: string): Record<string, unknown> {
  const shape = shapeOf(r.body) ?? {};
  const strings = Object.keys(shape).filter((k) => k !== 'data' && (bare(shape[k]!) as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'string');
  const field = strings.length ? strings[p.at % strings.length]! : 'poison';
  const own = plainObject(body) ? Object.entries(body).filter(([k, v]) => Object.hasOwn(shape, k) && (k === 'data' ? typeof v === 'string' : shape[k]!.safeParse(v).success)) : [];
  return { ...(withBase64Data(Object.fromEntries(own)) as Record<string, unknown>), [field]: text };
}

const BOUNDARY = '----hostile-boundary';
/** A part's field name as written: characters that would end the quoted name or the header line are replaced. */
const wireName = (k: string) => k.replace(/["\\\r\n]/g, '_');

export interface Multipart {
  body: Buffer;
  contentType: string;
  fields: Record<string, string>;
  filename?: string;
}

/**
 * The body's members as multipart: `data` as the file part (its text as the bytes), the rest as fields, as text the
 * way the wire carries it (UTF-8: a lone surrogate arrives as U+FFFD). `filename` names the file part (none: hello.txt).
 */
export function multipartOf(body: unknown, filename: string | null): Multipart {
  const parts: Buffer[] = [];
  const fields: Record<string, string> = {};
  const members = plainObject(body) ? Object.entries(body) : [];
  for (const [k, v] of members) {
    if (k === 'data') continue;
    const name = wireName(k);
    const value = Buffer.from(asText(v));
    fields[name] = value.toString('utf8');
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), value, Buffer.from('\r\n'));
  }
  const data = members.find(([k]) => k === 'data');
  let sentName: string | undefined;
  if (data) {
    // Through UTF-8 first, as the wire carries it: a lone surrogate becomes U+FFFD (and encodeURIComponent takes it).
    sentName = Buffer.from(filename ?? 'hello.txt').toString('utf8');
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(sentName)}\r\nContent-Type: text/plain\r\n\r\n`),
      Buffer.from(asText(data[1])), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${BOUNDARY}`, fields, filename: sentName };
}

/** Whether the service refuses this multipart body whatever else it holds: a field, or the filename standing in for the name, it cannot store. */
export function multipartRefused(m: Multipart): boolean {
  if (unstorable(m.fields, 'body')) return true;
  return m.fields.name === undefined && m.filename !== undefined && unstorable(m.filename, 'body.file.filename') !== null;
}
