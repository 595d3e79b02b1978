// What the CLI reads and writes instead of `process`: the real process (process-io.ts) or a test's in-memory streams.
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export type Env = Record<string, string | undefined>;
/** A stream the CLI writes to; `isTTY` picks a progress line redrawn in place over one line per update. */
export type Sink = Writable & { isTTY?: boolean };
/** Where tokens and tuples are piped in from; on a terminal the token is typed without echo (raw mode). */
export type Source = Readable & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };

export interface CliIo {
  /** The arguments after `authz`. */
  argv: string[];
  env: Env;
  /** Relative file arguments are relative to this. */
  cwd: string;
  stdin: Source;
  stdout: Sink;
  stderr: Sink;
  /** Calls `stop` on Ctrl-C (or SIGTERM) until the returned function is called: `authz changes --follow` ends cleanly. */
  onInterrupt(stop: () => void): () => void;
}

/**
 * A file argument resolved against `cwd`, for the file system; messages keep the path as the user gave it. An empty
 * path stays empty, so it fails as it would in the process (ENOENT) instead of naming `cwd` itself.
 */
export const at = (cwd: string, path: string) => (path === '' ? path : resolve(cwd, path));
