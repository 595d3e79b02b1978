// The service in this process on a fresh embedded stack, for the single-system benches (rate limits off, quiet log).
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, portOf } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { removeCluster } from '../infra/postgres.js';
import { ROOT, startStack, type StackPorts } from '../infra/stack.js';
import { say } from './report.js';

/** `env` overrides the service settings below (the soak keeps rate limits on, raised). */
export async function benchService(name: string, ports: StackPorts, env: Record<string, string> = {}) {
  const dataDir = join(ROOT, '.data', name);
  rmSync(dataDir, { recursive: true, force: true });
  removeCluster(join(dataDir, 'postgres'));
  const stack = await startStack({ dataDir, env: process.env, log: (l) => say(`  ${l}`), ports });
  // The servers run in their own process groups: Ctrl-C must stop them too.
  process.once('SIGINT', () => void stack.stop().then(() => process.exit(130)));
  const config = loadConfig({ ...stack.urls, ADMIN_PORT: '0', CLIENT_PORT: '0', GRPC_PORT: '0', SOCKET_PORT: '0', MASTER_KEY: randomUUID(), ADMIN_PASSWORD: 'bench-password',
    ADMIN_JWT_SECRET: randomUUID() + randomUUID(), CLIENT_JWT_SECRET: randomUUID() + randomUUID(), LOG_LEVEL: 'warn', ROUTER_RATE_LIMITS: JSON.stringify({ enabled: false }),
    ...env });
  const app = await createApp(config, createLogger('warn'));
  const listeners = await app.listen();
  return {
    config,
    app,
    listeners,
    port: (n: string) => portOf(listeners, n),
    pids: stack.pids ?? {},
    async stop() {
      await app.close();
      await stack.stop();
    },
  };
}
