// The composition root: connects the stores, builds the modules, registers their routes, puts the pipeline and the
// transports in front of them. It only wires; no singletons (but OpenTelemetry's, registered only when tracing is on).
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { bytesOf, inputLimitsOf, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { composeModules } from './wiring/compose.js';
import type { Stores } from './stores/ports/stores.js';
import { tracedStores } from './stores/traced.js';
import { Pipeline } from './surfaces/pipeline.js';
import { Registry } from './surfaces/registry.js';
import { transports } from './surfaces/transports.js';
import { startTracing } from './tracing.js';

/** A port the service listens on, by name (admin, client, socket, grpc), and the address it is bound to. */
export interface Listener {
  name: string;
  host: string;
  port: number;
}

/** The port of the listener named `name`. */
export function portOf(listeners: Listener[], name: string): number {
  const l = listeners.find((x) => x.name === name);
  if (!l) throw new Error(`no listener named ${name}`);
  return l.port;
}

export interface App {
  registry: Registry;
  log: Logger;
  listen(): Promise<Listener[]>;
  close(): Promise<void>;
}

/**
 * `spanExporter`: turns tracing on with spans handed to it as they end (tests read them), whatever the config says.
 * `stores`: the ports to run on (the in-memory twins, in tests) instead of connecting to the configured servers.
 */
export interface AppOptions {
  spanExporter?: SpanExporter;
  stores?: Stores;
}

export async function createApp(config: Config, log: Logger = createLogger(config.LOG_LEVEL), opts: AppOptions = {}): Promise<App> {
  const tracing = await startTracing(config, opts.spanExporter);
  if (tracing) log.info('tracing on: each call is a span, its store calls child spans');
  // Store calls become child spans in one place, here: no adapter knows about tracing.
  // Loaded only when connecting: the drivers (MongoDB, Neo4j, Redis, BullMQ, S3, SMTP) take seconds to load, which a
  // service on given ports (the in-memory twins) does not need.
  const connected = opts.stores ?? await (await import('./stores/stores.js')).connectStores(config, log);
  const stores = tracing ? tracedStores(connected, tracing.tracer) : connected;
  const registry = new Registry();
  const { modules, authz, core, authentication, database, settings, chat } = await composeModules(stores, config, registry, log);
  for (const m of modules) if (m.probe) core.health.probeModule(m.name, m.probe);
  for (const m of modules) await m.start?.();

  const pipeline = new Pipeline(registry, {
    auth: core.auth,
    clientAuth: authentication.clientAuth,
    limits: settings.limits,
    log,
    checkReplies: config.CHECK_REPLIES,
    maxInputBytes: bytesOf(config.BODY_LIMIT),
    inputLimits: inputLimitsOf(config),
    enabled: (t) => (t === 'rest' ? true : settings.settings.get('core').transports[t]),
    metrics: core.metrics,
    tracer: tracing?.tracer,
  });
  const listeners = transports({
    config,
    log,
    pipeline,
    metrics: core.metrics,
    health: core.health,
    schemas: database.schemas,
    watch: authz.watch,
    activity: authz.activity,
    chat: chat.sockets,
  });

  return {
    registry,
    log,
    async listen() {
      const out: Listener[] = [];
      for (const t of listeners) out.push({ name: t.name, host: t.host, port: await t.start() });
      return out;
    },
    async close() {
      // Stop taking connections and let requests in flight finish (bounded), then stop the background work.
      await Promise.all(listeners.map((t) => t.stop()));
      for (const m of [...modules].reverse()) await m.stop?.();
      await stores.close();
      await tracing?.stop();
    },
  };
}
