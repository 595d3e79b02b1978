// The CLI's I/O bound to the real process: the only place the `authz` command touches `process` (bin/authz.js uses it).
import type { CliIo } from './io.js';

export function processIo(): CliIo {
  return {
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    // Getters: process.stdin opens the stream on first use, and only commands that read it should.
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    onInterrupt(stop) {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      };
    },
  };
}
