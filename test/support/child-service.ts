// The service as a separate process (what a crash test kills with SIGKILL), against the test stack.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';
import { COMPILED_MAIN, compiledIsCurrent } from './compiled-entry.js';
import { freePort } from './free-port.js';

export interface ChildService {
  admin: string;
  /** The client surface's base URL. */
  client: string;
  /** The realtime socket's ws:// URL. */
  socket: string;
  /** host:port of its gRPC listener. */
  grpc: string;
  masterKey: string;
  http(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  start(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Sends a signal without waiting for an exit (SIGSTOP, SIGCONT). */
  signal(signal: NodeJS.Signals): void;
  /** The process id while it runs (tests read its memory in /proc). */
  pid(): number | undefined;
}

/**
 * What node runs by default: the compiled entry when it is current (npm test emits dist/ before jest runs), which
 * starts on about half the CPU time of tsx compiling src/ at each start (measured 2.1–2.4 s against 3.4–4.5 s); the
 * TypeScript entry through tsx otherwise, so a test file run alone after an edit runs the edited code. Decided once.
 */
let defaultArgs: string[] | undefined;
const serviceArgs = () => (defaultArgs ??= compiledIsCurrent() ? [COMPILED_MAIN] : ['--import', 'tsx', join(ROOT, 'src', 'main.ts')]);

/**
 * `args`: what node runs; the service entry (above) unless told (the compiled `dist/src/main.js`, say).
 * `output`: when given, everything the process writes (standard output, where the log goes, and standard error) is
 * appended to it, chunk by chunk; otherwise the log is dropped and standard error passes through.
 */
export async function childService(env: Record<string, string> = {}, args = serviceArgs(), opts: { output?: string[] } = {}): Promise<ChildService> {
  const port = await freePort();
  const clientPort = await freePort();
  const masterKey = randomBytes(24).toString('hex');
  const grpcPort = await freePort();
  const socketPort = await freePort();
  const fullEnv = {
    ...process.env,
    ADMIN_PORT: String(port),
    CLIENT_PORT: String(clientPort),
    GRPC_PORT: String(grpcPort),
    SOCKET_PORT: String(socketPort),
    MASTER_KEY: masterKey,
    ADMIN_PASSWORD: 'test-admin-password',
    ADMIN_JWT_SECRET: randomBytes(32).toString('hex'),
    CLIENT_JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    CHECK_REPLIES: '1',
    NEO4J_WARM_PLANS: '0', // as test/support/service.ts
    ...env,
  };
  const admin = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(admin + path, {
      method,
      headers: { masterkey: masterKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch { /* plain text */ }
    return { status: res.status, body: parsed as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return {
    admin,
    client: `http://127.0.0.1:${clientPort}`,
    grpc: `127.0.0.1:${grpcPort}`,
    socket: `ws://127.0.0.1:${socketPort}/realtime`,
    masterKey,
    http,
    async start() {
      const output = opts.output;
      child = spawn(process.execPath, args, { cwd: ROOT, env: fullEnv, stdio: ['ignore', output ? 'pipe' : 'ignore', output ? 'pipe' : 'inherit'] });
      if (output) {
        for (const stream of [child.stdout!, child.stderr!]) {
          stream.on('data', (chunk: Buffer) => {
            output.push(chunk.toString('utf8'));
          });
        }
      }
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
        const ok = await fetch(`${admin}/live`).then((r) => r.ok, () => false);
        if (ok) return;
        if (Date.now() > deadline) throw new Error('the service did not start within 60 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    signal(signal) {
      child?.kill(signal);
    },
    pid: () => child?.pid,
    async kill(signal = 'SIGKILL') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
      });
    },
  };
}
