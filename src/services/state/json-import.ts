// Reading a JSON state document as it streams: its `relations` and `grants` items go to a temporary file one per line,
// the rest (the header: definitions, schemas, config) is kept; then it reads as the NDJSON export of the same state.
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../errors.js';
import { MAX_LINE, type Spool } from './ndjson.js';

/** The arrays that may be long: streamed to the spool item by item, never held. */
const STREAMED = new Set(['relations', 'grants']);
const WS = new Set([' ', '\t', '\n', '\r']);

const malformed = (message: string) => new AppError('BAD_REQUEST', `The body is not a JSON state document: ${message}`);

/**
 * Reads the document to its end, writing each item of `relations` and `grants` as one line to `spool`. Resolves with
 * the lines the NDJSON import reads: the header (with `carries` naming the arrays the document has), every item, and
 * the end line counting them. Problems are numbered as those lines (1 the header, then relations, then grants).
 */
export async function jsonDocumentLines(stream: AsyncIterable<Buffer | string>, spools: { relations: Spool; grants: Spool }): Promise<() => AsyncGenerator<{ n: number; text: string }>> {
  const header: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let headerChars = 0;
  let state = 'start' as 'start' | 'key' | 'keyOrEnd' | 'colon' | 'value' | 'after' | 'item' | 'itemOrEnd' | 'itemAfter' | 'done';
  let key = '';
  // The value being read: its text so far (whitespace outside strings dropped), nesting, and where in a string it is.
  let buf: string | null = null;
  let depth = 0;
  let inString = false;
  let escaped = false;
  const present = new Set<string>();

  const finish = async () => {
    const text = buf!;
    buf = null;
    if (state === 'key' || state === 'keyOrEnd') {
      if (!text.startsWith('"')) throw malformed('expected a member name');
      key = JSON.parse(text) as string;
      state = 'colon';
    } else if (state === 'value') {
      let value: unknown;
      try { value = JSON.parse(text); } catch { throw malformed(`the value of ${key.slice(0, 64)} is not JSON`); }
      if ((headerChars += text.length) > MAX_LINE) throw new AppError('PAYLOAD_TOO_LARGE', `The document without its relations and grants is longer than ${MAX_LINE} characters`);
      header[key] = value;
      state = 'after';
    } else {
      await spools[key as 'relations' | 'grants'].write(text);
      state = 'itemAfter';
    }
  };

  /** One character outside a value being read: the document's structure. */
  const structure = (c: string) => {
    switch (state) {
      case 'start': if (c !== '{') throw malformed('expected an object'); state = 'keyOrEnd'; return;
      case 'keyOrEnd': if (c === '}') { state = 'done'; return; } if (c !== '"') throw malformed('expected a member name'); break;
      case 'key': if (c !== '"') throw malformed('expected a member name'); break;
      case 'colon': if (c !== ':') throw malformed('expected a colon'); state = 'value'; return;
      case 'value':
        if (c === '[' && STREAMED.has(key)) {
          if (present.has(key)) throw malformed(`${key} appears twice`);
          present.add(key);
          state = 'itemOrEnd';
          return;
        }
        break;
      case 'after': if (c === ',') state = 'key'; else if (c === '}') state = 'done'; else throw malformed('expected a comma or the end of the object'); return;
      case 'itemOrEnd': if (c === ']') { state = 'after'; return; } state = 'item'; break;
      case 'item': break;
      case 'itemAfter': if (c === ',') state = 'item'; else if (c === ']') state = 'after'; else throw malformed(`expected a comma or the end of ${key}`); return;
      case 'done': throw malformed('something follows the object');
    }
    // A value (or member name) starts here.
    buf = '';
    depth = 0;
    inString = false;
    escaped = false;
  };

  const feed = async (text: string) => {
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (buf === null) {
        i++;
        if (!WS.has(c)) {
          structure(c);
          if (buf !== null) { i--; buf = ''; } // the first character of the value is read as part of it below
        }
        continue;
      }
      if (inString) {
        buf += c;
        i++;
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') { inString = false; if (depth === 0) await finish(); }
      } else if (WS.has(c)) {
        i++;
        if (depth === 0 && buf) await finish();
      } else if (c === '"') {
        if (depth === 0 && buf) { await finish(); continue; }
        inString = true; buf += c; i++;
      } else if (c === '{' || c === '[') {
        if (depth === 0 && buf) { await finish(); continue; }
        depth++; buf += c; i++;
      } else if (c === '}' || c === ']') {
        if (depth === 0) { if (!buf) throw malformed(`unexpected ${c}`); await finish(); continue; }
        depth--; buf += c; i++;
        if (depth === 0) await finish();
      } else if (c === ',' && depth === 0) {
        if (!buf) throw malformed('unexpected comma');
        await finish();
      } else { buf += c; i++; }
      if (buf !== null && buf.length > MAX_LINE) throw new AppError('PAYLOAD_TOO_LARGE', `A value in the document is longer than ${MAX_LINE} characters`);
    }
  };

  const decoder = new StringDecoder('utf8');
  for await (const chunk of stream) await feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  await feed(decoder.end());
  if (buf !== null && state === 'value') await finish();
  if (state !== 'done') throw malformed('the body ends before the object does');
  await spools.relations.finish();
  await spools.grants.finish();

  // The arrays the document has are the sections it speaks for (as importing it whole did), whatever `carries` says.
  const carries = ['relations', 'grants'].filter((k) => present.has(k));
  const head = { ...header, carries };
  return async function* () {
    let n = 1;
    yield { n, text: JSON.stringify(head) };
    for (const section of ['relations', 'grants'] as const) for await (const text of spools[section].read()) yield { n: ++n, text };
    yield { n: ++n, text: JSON.stringify({ end: { relations: spools.relations.count, grants: spools.grants.count } }) };
  };
}

/**
 * A refusal of the lines `jsonDocumentLines` made, told in the document's own terms: line 1 is the header (`body`),
 * the others `relations.<i>` and `grants.<i>`, as a JSON document read whole names them.
 */
export function inDocumentTerms(e: unknown, counts: { relations: number; grants: number }): unknown {
  if (!(e instanceof AppError)) return e;
  const where = (line: number) => (line <= 1 ? 'body'
    : line - 2 < counts.relations ? `relations.${line - 2}`
      : line - 2 - counts.relations < counts.grants ? `grants.${line - 2 - counts.relations}` : 'body');
  const lineText = (s: string) => s.replace(/\bLine (\d+)\b/g, (_m, n: string) => where(Number(n)));
  const details = e.details.map((d) => {
    if (!d || typeof d !== 'object' || typeof (d as { line?: unknown }).line !== 'number') return d;
    const { line, path, message, ...rest } = d as { line: number; path?: string; message?: string };
    const base = where(line);
    return { ...rest, path: path ? `${base}.${path}` : base, ...(message === undefined ? {} : { message: lineText(message) }) };
  });
  return new AppError(e.code, lineText(e.message), details);
}
