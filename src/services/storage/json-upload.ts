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
export interface JsonUpload {
  fields: Record<string, unknown>;
  size: number | null;
}

/** `sink` receives the decoded bytes of `data` as they come and resolves with what it stored. */
export async function readJsonUpload(body: AsyncIterable<Buffer | string>, maxBytes: number, sink: (bytes: Readable) => Promise<number>): Promise<JsonUpload> {
  const parser = new UploadParser(maxBytes, sink);
  const bodyLimit = jsonBodyLimit(maxBytes);
  // Bytes of the body so far, less the backslashes of `\/` in data; bounded by what a file of maxBytes needs.
  let received = 0;
  try {
    const decoder = new StringDecoder('utf8');
    for await (const chunk of body) {
      received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      await parser.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
      if (received - parser.escapes > bodyLimit) {
        throw new AppError('PAYLOAD_TOO_LARGE',
          `The upload exceeds ${bodyLimit} bytes, more than the base64 JSON of a file of ${maxBytes} bytes (config storage.maxFileBytes) needs`);
      }
    }
    await parser.feed(decoder.end());
    return await parser.end();
  } catch (e) {
    await parser.abort(e as Error);
    throw e;
  }
}

type State = 'start' | 'keyOrEnd' | 'key' | 'colon' | 'value' | 'after' | 'done';

/** The parser's state between chunks: where in the object it is, the string or literal being read, and the data member. */
class UploadParser {
  // No prototype: a member named __proto__ is kept as one (and refused by the storable check), not dropped or made a prototype.
  readonly fields: Record<string, unknown> = Object.create(null);
  private state: State = 'start';
  private str: string | null = null; // a string member being read
  private escape: string | null = null; // after a backslash: '' or the \u digits so far
  private literal: string | null = null;
  private key = '';
  private inKey = false;
  // The data member: where its decoded bytes go, the base64 characters not yet decodable, and what the sink answers.
  private out: PassThrough | null = null;
  private stored: Promise<number> | null = null;
  private inData = false;
  private carry = '';
  private padding = 0;
  private decoded = 0;
  /** The backslashes of `\/` in data, which the body limit does not count. */
  escapes = 0;

  constructor(private readonly maxBytes: number, private readonly sink: (bytes: Readable) => Promise<number>) {}

  async feed(text: string): Promise<void> {
    let i = 0;
    while (i < text.length) {
      if (this.inData && this.escape === null) {
        i = await this.feedData(text, i);
        continue;
      }
      const c = text[i++]!;
      if (this.str !== null) {
        await this.stringChar(c);
        continue;
      }
      if (this.literal !== null) {
        if (/[A-Za-z0-9.+-]/.test(c)) {
          if ((this.literal += c).length > 32) throw bad('a value is too long');
          continue;
        }
        this.endLiteral();
      }
      if (!WS.has(c)) this.structureChar(c);
    }
  }

  async end(): Promise<JsonUpload> {
    if (this.literal !== null) this.endLiteral();
    if (this.state !== 'done') throw bad('the body ends before the object does');
    return { fields: this.fields, size: this.stored ? await this.stored : null };
  }

  async abort(e: Error): Promise<void> {
    this.out?.destroy(e);
    await this.stored?.catch(() => undefined);
  }

  /** The bulk of the body: takes everything up to the next quote or backslash at once; answers where it stopped. */
  private async feedData(text: string, i: number): Promise<number> {
    let j = i;
    while (j < text.length && text[j] !== '"' && text[j] !== '\\') j++;
    if (j > i) await this.base64(text.slice(i, j));
    if (j >= text.length) return j;
    if (text[j] === '"') await this.endString();
    else this.escape = '';
    return j + 1;
  }

  private async stringChar(c: string): Promise<void> {
    if (this.escape !== null) return this.escapeChar(c);
    if (c === '\\') this.escape = '';
    else if (c === '"') await this.endString();
    else if (c < ' ') throw bad('a control character in a string');
    else if ((this.str += c).length > MAX_TEXT) throw bad(`a member other than data is longer than ${MAX_TEXT} characters`);
  }

  private async escapeChar(c: string): Promise<void> {
    if (this.escape === '') {
      if (c === 'u' && !this.inData) {
        this.escape = 'u';
        return;
      }
      const e = ESCAPES[c];
      if (e === undefined || (this.inData && e !== '/')) throw bad(this.inData ? 'data is not base64' : `bad escape \\${c}`);
      this.escape = null;
      if (this.inData) {
        this.escapes++;
        await this.base64('/');
      } else this.str += e;
      return;
    }
    this.escape += c;
    if (this.escape!.length === 5) {
      if (!/^u[0-9a-fA-F]{4}$/.test(this.escape!)) throw bad('bad \\u escape');
      this.str += String.fromCharCode(parseInt(this.escape!.slice(1), 16));
      this.escape = null;
    }
  }

  /** A character outside strings and literals: braces, member names, colons, commas and the start of values. */
  private structureChar(c: string): void {
    switch (this.state) {
      case 'start':
        if (c !== '{') throw bad('expected an object');
        this.state = 'keyOrEnd';
        break;
      case 'keyOrEnd':
      case 'key':
        if (c === '}' && this.state === 'keyOrEnd') {
          this.state = 'done';
          break;
        }
        if (c !== '"') throw bad('expected a member name');
        if (Object.keys(this.fields).length >= MAX_MEMBERS) throw bad('too many members');
        this.str = '';
        this.inKey = true;
        break;
      case 'colon':
        if (c !== ':') throw bad('expected a colon');
        this.state = 'value';
        break;
      case 'value':
        this.startValue(c);
        break;
      case 'after':
        if (c === ',') this.state = 'key';
        else if (c === '}') this.state = 'done';
        else throw bad('expected a comma or the end of the object');
        break;
      case 'done':
        throw bad('something follows the object');
    }
  }

  private startValue(c: string): void {
    this.inKey = false;
    if (c === '"') {
      this.str = '';
      if (this.key === 'data') {
        this.inData = true;
        const out = this.out = new PassThrough();
        out.on('error', () => undefined); // the sink's pipeline reports it; this only keeps it from counting as unhandled
        this.stored = this.sink(out as Readable);
        this.stored.catch(() => undefined); // awaited at the end; this only keeps an early failure from going unhandled
      }
    } else if (/[-0-9tfn]/.test(c)) this.literal = c;
    else throw bad('members are strings, booleans or null');
  }

  private async write(buf: Buffer): Promise<void> {
    this.decoded += buf.length;
    if (this.decoded > this.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `The file exceeds ${this.maxBytes} bytes (config storage.maxFileBytes)`);
    if (!this.out!.write(buf)) await Promise.race([once(this.out!, 'drain'), this.stored]);
  }

  private async base64(text: string): Promise<void> {
    if (!B64.test(text.replace(/=+$/, '')) || (this.padding > 0 && text.length > 0 && /[^=]/.test(text))) throw bad('data is not base64');
    this.padding += text.length - text.replace(/=+$/, '').length;
    if (this.padding > 2) throw bad('data is not base64: at most two = end it');
    const all = this.carry + text.replace(/=/g, '');
    const n = all.length - (all.length % 4);
    this.carry = all.slice(n);
    if (n > 0) await this.write(Buffer.from(all.slice(0, n), 'base64'));
  }

  private async endString(): Promise<void> {
    if (this.inKey) {
      this.key = this.str!;
      if (Object.hasOwn(this.fields, this.key) || (this.key === 'data' && this.stored)) throw bad(`member ${this.key} appears twice`);
      this.state = 'colon';
    } else if (this.inData) {
      if (this.carry.length === 1) throw bad('data is not base64');
      if (this.carry) await this.write(Buffer.from(this.carry, 'base64'));
      this.out!.end();
      this.inData = false;
      this.state = 'after';
    } else {
      this.fields[this.key] = this.str;
      this.state = 'after';
    }
    this.str = null;
  }

  private endLiteral(): void {
    let v: unknown;
    try {
      v = JSON.parse(this.literal!);
    } catch {
      throw bad(`${this.literal!.slice(0, 20)} is not a value`);
    }
    this.fields[this.key] = v;
    this.literal = null;
    this.state = 'after';
  }
}
