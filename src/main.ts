// Process entry: read the configuration, start the surfaces, stop cleanly on SIGINT/SIGTERM.
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './log.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const app = await createApp(config, log);
  if (config.WORKER_ONLY) {
    // Index work only: recovery of pending changes and rebuilds, with no HTTP surfaces.
    log.info('worker only: applying pending changes and rebuilds, not listening');
  } else {
    const listeners = await app.listen();
    log.info(Object.fromEntries(listeners.map((l) => [l.name, `${l.host}:${l.port}`])), 'listening');
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'stopping now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'stopping: finishing requests in flight (a second signal exits at once)');
    // Whatever is not done by then is in the change log and is applied at the next start.
    setTimeout(() => {
      log.warn('stop took too long; exiting');
      process.exit(1);
    }, 15_000).unref();
    await app.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
