// NDJSON plumbing for state imports: split a byte stream into lines, and spool lines to a temporary file to read again.
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';

const PREFIX = 'authz-state-';
/** The longest line taken (the header carries every definition and schema). */
export const MAX_LINE = 16 * 1024 * 1024;

/** Non-empty lines with their 1-based numbers; a line over MAX_LINE is refused rather than buffered. */
export async function* lines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<{ n: number; text: string }> {
  let rest = '';
  let n = 0;
  // A character split across two chunks is joined, never replaced by U+FFFD.
  const decoder = new StringDecoder('utf8');
  for await (const chunk of cutShort(stream)) {
    rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // Lines are cut from where the last one ended and the remainder kept once per chunk: cutting the remainder after
    // every line copied a chunk once per line it held.
    let from = 0;
    let at: number;
    while ((at = rest.indexOf('\n', from)) >= 0) {
      const text = rest.slice(from, at).trim();
      from = at + 1;
      n++;
      if (text) yield { n, text };
    }
    rest = rest.slice(from);
    if (rest.length > MAX_LINE) throw new AppError('PAYLOAD_TOO_LARGE', `Line ${n + 1} is longer than ${MAX_LINE} characters`);
  }
  rest += decoder.end();
  n++;
  if (rest.trim()) yield { n, text: rest.trim() };
}

/**
 * The upload as it arrives, refused (413) once it is past `max` bytes: the one bound of a state import, JSON or NDJSON
 * (each is spooled to a temporary file, so the disk, not memory, is what it would fill).
 */
export async function* bounded(stream: AsyncIterable<Buffer | string>, max: number): AsyncGenerator<Buffer | string> {
  let size = 0;
  for await (const chunk of stream) {
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (size > max) throw new AppError('PAYLOAD_TOO_LARGE', importTooLarge(max));
    yield chunk;
  }
}

/** The 413 of a state import past its bound, the same for both formats and every transport. */
export const importTooLarge = (max: number) =>
  `The state import exceeds ${max} bytes (STATE_IMPORT_LIMIT, for JSON and NDJSON alike; over REST either is streamed to a temporary file and checked there)`;

/** A client that goes away mid-upload is told apart from a fault of ours (nothing has been applied by then). */
async function* cutShort(stream: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
  try {
    yield* stream;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if ((e as Error).message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
      throw new AppError('BAD_REQUEST', 'The upload was cut short; nothing was imported');
    }
    throw e;
  }
}

/** Spool files a crashed process left behind, a day old or more, go at start. */
export async function removeStaleSpools(): Promise<void> {
  const dir = tmpdir();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(PREFIX)) continue;
    const path = join(dir, name);
    const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > 24 * 3600_000) await rm(path, { force: true });
  }
}

/** Resolves on 'drain', or on 'close' (after an error), removing both listeners either way. */
export function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/** A temporary file of lines, written once and read back as often as needed, then removed. */
export class Spool {
  readonly path = join(tmpdir(), `${PREFIX}${randomUUID()}.ndjson`);
  private readonly out = createWriteStream(this.path);
  /** A write error (disk full) is kept and thrown at the next write, never left as an unhandled event. */
  private failed: Error | null = null;
  count = 0;

  constructor() {
    this.out.on('error', (e) => {
      this.failed = e;
    });
  }

  private check(): void {
    if (!this.failed) return;
    if ((this.failed as { code?: string }).code === 'ENOSPC') {
      throw new AppError('PAYLOAD_TOO_LARGE', 'This server has no room to hold the upload while it is checked');
    }
    throw this.failed;
  }

  async write(line: string): Promise<void> {
    this.check();
    this.count++;
    if (!this.out.write(`${line}\n`)) await drained(this.out);
    this.check();
  }

  async finish(): Promise<void> {
    this.check();
    await new Promise<void>((resolve) => {
      this.out.once('error', () => resolve());
      this.out.end(resolve);
    });
    this.check();
  }

  async *read(): AsyncGenerator<string> {
    const input = createReadStream(this.path, { encoding: 'utf8' });
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line) yield line;
    } finally {
      input.destroy();
    }
  }

  async remove(): Promise<void> {
    this.out.destroy();
    await rm(this.path, { force: true });
  }
}
