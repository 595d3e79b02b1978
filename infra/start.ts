// `npm start`: the embedded default. Starts Redis, FerretDB and Neo4j (unless their URLs are set), then the service.
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { devSecrets } from './secrets.js';
import { ROOT, startStack } from './stack.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const dataDir = join(ROOT, '.data');
  const t0 = Date.now();
  say('starting the embedded stack (first run builds FerretDB and fetches Neo4j; later runs take seconds)');
  const stack = await startStack({
    dataDir, env: process.env, log: (l) => say(`  ${l}`),
    ports: { redis: 6379, mongo: 27017, bolt: 7687, http: 7474 },
  });
  say(`  servers up in ${((Date.now() - t0) / 1000).toFixed(1)} s (started: ${stack.started.join(', ') || 'none, all reused'})`);
  const { secrets, generated } = devSecrets(join(dataDir, 'secrets.json'), process.env);
  // Redis carries the queues and the decision cache, so the embedded default checks it by default.
  const env = { READY_CHECK_REDIS: '1', ...process.env, ...stack.urls, ...secrets };
  const config = loadConfig(env);
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  const stop = async () => {
    say('\nstopping');
    await app?.close();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  try {
    app = await createApp(config);
    const ports = await app.listen();
    const origin = (p: number) => `http://${config.HOST}:${p}`;
    say('');
    say(`  admin surface   ${origin(ports.admin)}   (health: ${origin(ports.admin)}/ready)`);
    say(`  client surface  ${origin(ports.client)}`);
    say(`  Neo4j Browser   http://127.0.0.1:7474/browser/   (bolt ${stack.urls.NEO4J_URI}, no auth)`);
    say(`  MongoDB         ${stack.urls.MONGO_URL}`);
    say(`  Redis           ${stack.urls.REDIS_URL}`);
    say('');
    const origin_ = generated.length ? 'generated now, kept in .data/secrets.json' : 'from the environment or .data/secrets.json';
    say(`  masterkey       ${config.MASTER_KEY}   (${origin_})`);
    say(`  admin login     ${config.ADMIN_USERNAME} / ${config.ADMIN_PASSWORD}`);
    say('');
    say('Ctrl-C stops the service and the servers it started.');
  } catch (e) {
    console.error(`failed to start: ${(e as Error).message}`);
    await stack.stop();
    process.exit(1);
  }
}

void main();
