// NDJSON plumbing for state imports: split a byte stream into lines, and spool lines to a temporary file to read again.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';

/** The longest line taken (the header carries every definition and schema). */
const MAX_LINE = 16 * 1024 * 1024;

/** Non-empty lines with their 1-based numbers; a line over MAX_LINE is refused rather than buffered. */
export async function* lines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<{ n: number; text: string }> {
  let rest = '';
  let n = 0;
  for await (const chunk of stream) {
    rest += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let at: number;
    while ((at = rest.indexOf('\n')) >= 0) {
      const text = rest.slice(0, at).trim();
      rest = rest.slice(at + 1);
      n++;
      if (text) yield { n, text };
    }
    if (rest.length > MAX_LINE) throw new AppError('PAYLOAD_TOO_LARGE', `Line ${n + 1} is longer than ${MAX_LINE} characters`);
  }
  n++;
  if (rest.trim()) yield { n, text: rest.trim() };
}

/** A temporary file of lines, written once and read back as often as needed, then removed. */
export class Spool {
  readonly path = join(tmpdir(), `authz-state-${randomUUID()}.ndjson`);
  private readonly out = createWriteStream(this.path);
  count = 0;

  async write(line: string): Promise<void> {
    this.count++;
    if (!this.out.write(`${line}\n`)) await once(this.out, 'drain');
  }

  async finish(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
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
