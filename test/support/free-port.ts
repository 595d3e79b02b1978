// Ports for servers a test starts in another process (the service, gofakes3) or for a port nothing listens on.
import { createServer } from 'node:net';

/**
 * Below Linux's ephemeral range (32768–60999) and between the test stacks' ports (test-stacks.ts: up to 22,585 with
 * the largest TEST_PORT_OFFSET, then from 27,117): a port taken with listen(0) and closed again for a child to bind
 * was taken meanwhile by some client socket's local end now and then (a child service exited with EADDRINUSE while
 * the other worker's tests opened thousands of connections); client sockets never get a port from here.
 */
const FIRST = 22_600;
const SPAN = 4_500;
/** Each jest worker walks its own share of the range, so two workers never hand out one port. */
const SHARE = 500;

/** This worker's share of the range. */
export function portShare(env: NodeJS.ProcessEnv = process.env): { base: number; size: number } {
  const worker = Math.max(1, Number(env.JEST_WORKER_ID ?? 1));
  return { base: FIRST + ((worker - 1) * SHARE) % SPAN, size: SHARE };
}

const issued = new Set<number>();
let next = -1;

const bindable = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });

/**
 * A port free now and not handed out before by this process (until its share wraps): a child binds it a moment later.
 * A port a server of another checkout or test holds fails the bind and is skipped.
 */
export async function freePort(): Promise<number> {
  const { base } = portShare();
  if (next < 0) next = Math.floor(Math.random() * SHARE);
  for (let tried = 0; tried < SHARE; tried++) {
    const port = base + (next++ % SHARE);
    if (issued.has(port)) continue;
    if (await bindable(port)) {
      issued.add(port);
      if (issued.size >= SHARE / 2) issued.clear(); // long runs reuse ports of children long gone
      return port;
    }
  }
  throw new Error(`no free port in ${base}–${base + SHARE - 1}`);
}
