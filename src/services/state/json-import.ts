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
export async function jsonDocumentLines(stream: AsyncIterable<Buffer | string>,
  spools: { relations: Spool; grants: Spool }): Promise<() => AsyncGenerator<{ n: number; text: string }>> {
  const reader = new DocumentReader(spools);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of stream) await reader.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  await reader.feed(decoder.end());
  await reader.end();
  await spools.relations.finish();
  await spools.grants.finish();

  // The arrays the document has are the sections it speaks for (as importing it whole did), whatever `carries` says.
  const carries = ['relations', 'grants'].filter((k) => reader.present.has(k));
  const head = { ...reader.header, carries };
  return async function*() {
    let n = 1;
    yield { n, text: JSON.stringify(head) };
    for (const section of ['relations', 'grants'] as const) for await (const text of spools[section].read()) yield { n: ++n, text };
    yield { n: ++n, text: JSON.stringify({ end: { relations: spools.relations.count, grants: spools.grants.count } }) };
  };
}

type State = 'start' | 'key' | 'keyOrEnd' | 'colon' | 'value' | 'after' | 'item' | 'itemOrEnd' | 'itemAfter' | 'done';

/** The reader's state between chunks: where in the document it is, and the value (or member name) being read. */
class DocumentReader {
  readonly header: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  /** The streamed arrays the document has. */
  readonly present = new Set<string>();
  private headerChars = 0;
  private state: State = 'start';
  private key = '';
  // The value being read: its text so far (whitespace outside strings dropped), nesting, and where in a string it is.
  private buf: string | null = null;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly spools: { relations: Spool; grants: Spool }) {}

  async feed(text: string): Promise<void> {
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (this.buf === null) {
        i++;
        if (!WS.has(c)) {
          this.structure(c);
          if (this.buf !== null) {
            i--;
            this.buf = '';
          } // the first character of the value is read as part of it below
        }
        continue;
      }
      if (await this.valueChar(c)) i++;
      if (this.buf !== null && this.buf.length > MAX_LINE) throw new AppError('PAYLOAD_TOO_LARGE', `A value in the document is longer than ${MAX_LINE} characters`);
    }
  }

  async end(): Promise<void> {
    if (this.buf !== null && this.state === 'value') await this.finish();
    if (this.state !== 'done') throw malformed('the body ends before the object does');
  }

  /** One character of a value being read; answers whether it was taken (else the value ended before it). */
  private async valueChar(c: string): Promise<boolean> {
    const top = this.depth === 0;
    if (this.inString) {
      this.buf += c;
      if (this.escaped) this.escaped = false;
      else if (c === '\\') this.escaped = true;
      else if (c === '"') {
        this.inString = false;
        if (top) await this.finish();
      }
      return true;
    }
    if (WS.has(c)) {
      if (top && this.buf) await this.finish();
      return true;
    }
    if (c === '"' || c === '{' || c === '[') {
      if (top && this.buf) {
        await this.finish();
        return false;
      }
      if (c === '"') this.inString = true; else this.depth++;
      this.buf += c;
      return true;
    }
    if (c === '}' || c === ']') {
      if (top) {
        if (!this.buf) throw malformed(`unexpected ${c}`);
        await this.finish();
        return false;
      }
      this.depth--;
      this.buf += c;
      if (this.depth === 0) await this.finish();
      return true;
    }
    if (c === ',' && top) {
      if (!this.buf) throw malformed('unexpected comma');
      await this.finish();
      return false;
    }
    this.buf += c;
    return true;
  }

  private async finish(): Promise<void> {
    const text = this.buf!;
    this.buf = null;
    if (this.state === 'key' || this.state === 'keyOrEnd') {
      if (!text.startsWith('"')) throw malformed('expected a member name');
      this.key = JSON.parse(text) as string;
      this.state = 'colon';
    } else if (this.state === 'value') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw malformed(`the value of ${this.key.slice(0, 64)} is not JSON`);
      }
      if ((this.headerChars += text.length) > MAX_LINE) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The document without its relations and grants is longer than ${MAX_LINE} characters`);
      }
      this.header[this.key] = value;
      this.state = 'after';
    } else {
      await this.spools[this.key as 'relations' | 'grants'].write(text);
      this.state = 'itemAfter';
    }
  }

  /** One character outside a value being read: the document's structure. */
  private structure(c: string): void {
    const { key } = this;
    switch (this.state) {
      case 'start':
        if (c !== '{') throw malformed('expected an object');
        this.state = 'keyOrEnd';
        return;
      case 'keyOrEnd':
        if (c === '}') {
          this.state = 'done';
          return;
        }
        if (c !== '"') throw malformed('expected a member name');
        break;
      case 'key':
        if (c !== '"') throw malformed('expected a member name');
        break;
      case 'colon':
        if (c !== ':') throw malformed('expected a colon');
        this.state = 'value';
        return;
      case 'value':
        if (c === '[' && STREAMED.has(key)) {
          if (this.present.has(key)) throw malformed(`${key} appears twice`);
          this.present.add(key);
          this.state = 'itemOrEnd';
          return;
        }
        break;
      case 'after':
        if (c === ',') this.state = 'key'; else if (c === '}') this.state = 'done'; else throw malformed('expected a comma or the end of the object');
        return;
      case 'itemOrEnd':
        if (c === ']') {
          this.state = 'after';
          return;
        }
        this.state = 'item';
        break;
      case 'item':
        break;
      case 'itemAfter':
        if (c === ',') this.state = 'item'; else if (c === ']') this.state = 'after'; else throw malformed(`expected a comma or the end of ${key}`);
        return;
      case 'done':
        throw malformed('something follows the object');
    }
    // A value (or member name) starts here.
    this.buf = '';
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
  }
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
