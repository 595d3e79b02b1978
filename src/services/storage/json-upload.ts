// Reads a JSON upload `{ name, data: <base64>, ... }` as it arrives: the base64 `data` is decoded piece by piece into the
// provider, never held whole; the other members (short strings, booleans, null) are collected.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../errors.js';

/** The longest member other than `data`, in characters: names, folders and content types are short. */
const MAX_TEXT = 4096;
const MAX_MEMBERS = 16;
/** What a body may hold besides the base64 of `data`: the other members, punctuation and whitespace. */
export const JSON_OVERHEAD_BYTES = 64 * 1024;
/**
 * The most bytes a JSON upload of a file of `maxBytes` needs: its base64 (padding included) and the overhead. A `\/`
 * escape in `data` is one character of base64 and not counted twice.
 */
export const jsonBodyLimit = (maxBytes: number) => Math.ceil(maxBytes / 3) * 4 + JSON_OVERHEAD_BYTES;
const WS = new Set([' ', '\t', '\n', '\r']);
const B64 = /^[A-Za-z0-9+/_-]*$/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const bad = (message: string) => new AppError('BAD_REQUEST', `The upload is not a JSON object of the expected kind: ${message}`);

/** `size` is null when the body has no `data` (a change of metadata only). */
export interface JsonUpload { fields: Record<string, unknown>; size: number | null }

/** `sink` receives the decoded bytes of `data` as they come and resolves with what it stored. */
export async function readJsonUpload(body: AsyncIterable<Buffer | string>, maxBytes: number, sink: (bytes: Readable) => Promise<number>): Promise<JsonUpload> {
  // No prototype: a member named __proto__ is kept as one (and refused by the storable check), not dropped or made a prototype.
  const fields: Record<string, unknown> = Object.create(null);
  // Declared with `as`: they change inside `feed`, which control-flow narrowing does not follow.
  let state = 'start' as 'start' | 'keyOrEnd' | 'key' | 'colon' | 'value' | 'after' | 'done';
  let str: string | null = null; // a string member being read
  let escape: string | null = null; // after a backslash: '' or the \u digits so far
  let literal = null as string | null;
  let key = '';
  let inKey = false;
  // The data member: where its decoded bytes go, the base64 characters not yet decodable, and what the sink answers.
  let out = null as PassThrough | null;
  let stored = null as Promise<number> | null;
  let inData = false;
  let carry = '';
  let padding = 0;
  let decoded = 0;
  // Bytes of the body so far, less the backslashes of `\/` in data; bounded by what a file of maxBytes needs.
  let received = 0;
  let escapes = 0;
  const bodyLimit = jsonBodyLimit(maxBytes);

  const write = async (buf: Buffer) => {
    decoded += buf.length;
    if (decoded > maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The file exceeds ${maxBytes} bytes (config storage.maxFileBytes)`);
    if (!out!.write(buf)) await Promise.race([once(out!, 'drain'), stored]);
  };
  const base64 = async (text: string) => {
    if (!B64.test(text.replace(/=+$/, '')) || (padding > 0 && text.length > 0 && /[^=]/.test(text))) throw bad('data is not base64');
    padding += text.length - text.replace(/=+$/, '').length;
    if (padding > 2) throw bad('data is not base64: at most two = end it');
    const all = carry + text.replace(/=/g, '');
    const n = all.length - (all.length % 4);
    carry = all.slice(n);
    if (n > 0) await write(Buffer.from(all.slice(0, n), 'base64'));
  };
  const endString = async () => {
    if (inKey) {
      key = str!;
      if (Object.hasOwn(fields, key) || (key === 'data' && stored)) throw bad(`member ${key} appears twice`);
      state = 'colon';
    } else if (inData) {
      if (carry.length === 1) throw bad('data is not base64');
      if (carry) await write(Buffer.from(carry, 'base64'));
      out!.end();
      inData = false;
      state = 'after';
    } else {
      fields[key] = str;
      state = 'after';
    }
    str = null;
  };
  const endLiteral = () => {
    let v: unknown;
    try { v = JSON.parse(literal!); } catch { throw bad(`${literal!.slice(0, 20)} is not a value`); }
    fields[key] = v;
    literal = null;
    state = 'after';
  };

  async function feed(text: string) {
    let i = 0;
    while (i < text.length) {
      if (inData && escape === null) {
        // The bulk of the body: take everything up to the next quote or backslash at once.
        let j = i;
        while (j < text.length && text[j] !== '"' && text[j] !== '\\') j++;
        if (j > i) await base64(text.slice(i, j));
        i = j;
        if (i >= text.length) break;
        const c = text[i++]!;
        if (c === '"') await endString();
        else escape = '';
        continue;
      }
      const c = text[i++]!;
      if (str !== null) {
        if (escape !== null) {
          if (escape === '') {
            if (c === 'u' && !inData) { escape = 'u'; continue; }
            const e = ESCAPES[c];
            if (e === undefined || (inData && e !== '/')) throw bad(inData ? 'data is not base64' : `bad escape \\${c}`);
            escape = null;
            if (inData) { escapes++; await base64('/'); } else str += e;
          } else {
            escape += c;
            if (escape.length === 5) {
              if (!/^u[0-9a-fA-F]{4}$/.test(escape)) throw bad('bad \\u escape');
              str += String.fromCharCode(parseInt(escape.slice(1), 16));
              escape = null;
            }
          }
        } else if (c === '\\') escape = '';
        else if (c === '"') await endString();
        else if (c < ' ') throw bad('a control character in a string');
        else if ((str += c).length > MAX_TEXT) throw bad(`a member other than data is longer than ${MAX_TEXT} characters`);
        continue;
      }
      if (literal !== null) {
        if (/[A-Za-z0-9.+-]/.test(c)) {
          if ((literal += c).length > 32) throw bad('a value is too long');
          continue;
        }
        endLiteral();
      }
      if (WS.has(c)) continue;
      switch (state) {
        case 'start':
          if (c !== '{') throw bad('expected an object');
          state = 'keyOrEnd';
          break;
        case 'keyOrEnd': case 'key':
          if (c === '}' && state === 'keyOrEnd') { state = 'done'; break; }
          if (c !== '"') throw bad('expected a member name');
          if (Object.keys(fields).length >= MAX_MEMBERS) throw bad('too many members');
          str = ''; inKey = true;
          break;
        case 'colon':
          if (c !== ':') throw bad('expected a colon');
          state = 'value';
          break;
        case 'value':
          inKey = false;
          if (c === '"') {
            str = '';
            if (key === 'data') {
              inData = true;
              out = new PassThrough();
              out.on('error', () => undefined); // the sink's pipeline reports it; this only keeps it from counting as unhandled
              stored = sink(out as Readable);
              stored.catch(() => undefined); // awaited at the end; this only keeps an early failure from going unhandled
            }
          } else if (/[-0-9tfn]/.test(c)) literal = c;
          else throw bad('members are strings, booleans or null');
          break;
        case 'after':
          if (c === ',') state = 'key';
          else if (c === '}') state = 'done';
          else throw bad('expected a comma or the end of the object');
          break;
        case 'done':
          throw bad('something follows the object');
      }
    }
  }

  try {
    const decoder = new StringDecoder('utf8');
    for await (const chunk of body) {
      received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      await feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      if (received - escapes > bodyLimit) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The upload exceeds ${bodyLimit} bytes, more than the base64 JSON of a file of ${maxBytes} bytes (config storage.maxFileBytes) needs`);
      }
    }
    await feed(decoder.end());
    if (literal !== null) endLiteral();
    if (state !== 'done') throw bad('the body ends before the object does');
    return { fields, size: stored ? await stored : null };
  } catch (e) {
    out?.destroy(e as Error);
    await stored?.catch(() => undefined);
    throw e;
  }
}
