// `npm start`: the embedded default. Starts Redis, FerretDB and Neo4j (unless their URLs are set), then the
// service as a child process; when the service exits, for whatever reason, the servers it started are stopped.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { devSecrets } from './secrets.js';
import { ROOT, startStack } from './stack.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const dataDir = join(ROOT, '.data');
  const t0 = Date.now();
  say('starting the embedded stack (first run builds FerretDB and fetches Neo4j; later runs take seconds)');
  const stack = await startStack({
    dataDir,
    env: process.env,
    log: (l) => say(`  ${l}`),
    ports: { redis: 6379, mongo: 27017, postgres: 27432, bolt: 7687, http: 7474 },
  });
  say(`  servers up in ${((Date.now() - t0) / 1000).toFixed(1)} s (started: ${stack.started.join(', ') || 'none, all reused'})`);
  const { secrets, generated } = devSecrets(join(dataDir, 'secrets.json'), process.env);
  // Redis carries the locks and the decision cache, so the embedded default checks it by default.
  const env = { READY_CHECK_REDIS: '1', ...process.env, ...stack.urls, ...secrets };
  const config = loadConfig(env);
  const admin = `http://${config.ADMIN_HOST}:${config.ADMIN_PORT}`;
  say('');
  say(`  admin surface   ${admin}   (health: ${admin}/ready)`);
  say(`  client surface  http://${config.CLIENT_HOST}:${config.CLIENT_PORT}`);
  say(`  realtime socket ws://${config.CLIENT_HOST}:${config.SOCKET_PORT}/realtime   (Bearer access token)`);
  say(`  gRPC            ${config.ADMIN_HOST}:${config.GRPC_PORT}   (authzgraph.v1.AuthzGraph, reflection on)`);
  say(`  Neo4j Browser   http://127.0.0.1:7474/browser/   (bolt ${stack.urls.NEO4J_URI}, no auth)`);
  say(`  MongoDB         ${stack.urls.MONGO_URL}`);
  say(`  Redis           ${stack.urls.REDIS_URL}`);
  say('');
  const from = generated.length ? 'generated now, kept in .data/secrets.json' : 'from the environment or .data/secrets.json';
  say(`  masterkey       ${config.MASTER_KEY}   (${from})`);
  say(`  admin login     ${config.ADMIN_USERNAME} / ${config.ADMIN_PASSWORD}`);
  say('');
  say('Ctrl-C stops the service and the servers it started.');

  const service = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main.ts')], { cwd: ROOT, env, stdio: 'inherit' });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // Ctrl-C reaches the service too (same process group); the servers run in their own groups and wait for it.
    if (stopping) {
      service.kill('SIGKILL');
      return;
    }
    stopping = true;
    say(`\nstopping (${signal}): the service finishes its requests, then the servers stop`);
    if (service.exitCode === null) service.kill('SIGTERM');
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  service.on('exit', (code, signal) => {
    if (!stopping) say(`the service exited (${signal ?? `code ${code}`}); stopping the servers it used`);
    void stack.stop().then(() => process.exit(stopping ? 0 : (code ?? 1)));
  });
}

main().catch((e: Error) => {
  console.error(`failed to start: ${e.message}`);
  process.exit(1);
});
