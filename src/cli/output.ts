// Where the CLI writes: results on stdout (text, or JSON with --json), notes and progress on stderr.
import type { Sink } from './io.js';
export interface Output {
  json: boolean;
  /** A line of the human-readable result (skipped with --json). */
  line(text?: string): void;
  /** A JSON value as one line on stdout (only with --json). */
  value(v: unknown): void;
  /** A note for the person at the terminal, on stderr whatever the mode. */
  note(text: string): void;
}

export function output(json: boolean, out: Sink, err: Sink): Output {
  return {
    json,
    line: (text = '') => {
      if (!json) out.write(`${text}\n`);
    },
    value: (v) => {
      if (json) out.write(`${JSON.stringify(v)}\n`);
    },
    note: (text) => {
      err.write(`${text}\n`);
    },
  };
}

export const count = (n: number) => n.toLocaleString('en-US');

/**
 * A progress line on stderr: redrawn in place on a terminal (at most ten times a second), else a line every five
 * seconds, and always a last line with the total and the rate.
 */
export class Progress {
  private readonly started = Date.now();
  private last = 0;
  private n = 0;
  private done = 0;
  private readonly tty: boolean;

  constructor(private readonly label: string, private readonly unit: string, private readonly total: number | undefined, private readonly err: Sink) {
    this.tty = err.isTTY === true;
  }

  /** `items` more counted; `progress` (e.g. bytes sent) against the total when there is one. */
  add(items: number, progress = 0): void {
    this.n += items;
    this.done += progress;
    const now = Date.now();
    if (now - this.last < (this.tty ? 100 : 5000)) return;
    this.last = now;
    this.draw(false);
  }

  finish(suffix = ''): void {
    this.draw(true, suffix);
  }

  get items(): number {
    return this.n;
  }

  private draw(final: boolean, suffix = ''): void {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001);
    const rate = `${count(Math.round(this.n / seconds))} ${this.unit}/s`;
    let bar = '';
    if (this.total && !final) {
      const share = Math.min(this.done / this.total, 1);
      bar = `[${'#'.repeat(Math.round(share * 20)).padEnd(20, '.')}] ${Math.floor(share * 100)}% `;
    }
    const text = `${this.label}: ${bar}${count(this.n)} ${this.unit}${final ? ` in ${seconds.toFixed(1)} s` : ''} (${rate})${suffix}`;
    if (this.tty) this.err.write(`\r\x1b[K${text}${final ? '\n' : ''}`);
    else this.err.write(`${text}\n`);
  }
}
