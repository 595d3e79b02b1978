// The composition root: connects the stores, builds the modules, registers their routes, puts the pipeline and the
// transports in front of them. It only wires; no singletons (but OpenTelemetry's, registered only when tracing is on).
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { bytesOf, inputLimitsOf, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { authenticationModule } from './wiring/authentication.js';
import { authorizationModule } from './wiring/authorization.js';
import { communicationsModule } from './wiring/communications.js';
import { chatModule } from './wiring/chat.js';
import { configModule } from './wiring/config.js';
import { coreModule } from './wiring/core.js';
import { databaseModule } from './wiring/database.js';
import type { Module } from './wiring/module.js';
import { stateModule } from './wiring/state.js';
import { storageModule } from './wiring/storage.js';
import type { Stores } from './stores/ports/stores.js';
import { connectStores } from './stores/stores.js';
import { tracedStores } from './stores/traced.js';
import { Pipeline } from './surfaces/pipeline.js';
import { Registry } from './surfaces/registry.js';
import { transports } from './surfaces/transports.js';
import { startTracing } from './tracing.js';

/** A port the service listens on, by name (admin, client, socket, grpc), and the address it is bound to. */
export interface Listener { name: string; host: string; port: number }

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
export interface AppOptions { spanExporter?: SpanExporter; stores?: Stores }

export async function createApp(config: Config, log: Logger = createLogger(config.LOG_LEVEL), opts: AppOptions = {}): Promise<App> {
  const tracing = await startTracing(config, opts.spanExporter);
  if (tracing) log.info('tracing on: each call is a span, its store calls child spans');
  // Store calls become child spans in one place, here: no adapter knows about tracing.
  const connected = opts.stores ?? await connectStores(config, log);
  const stores = tracing ? tracedStores(connected, tracing.tracer) : connected;
  const registry = new Registry();
  const authz = await authorizationModule(stores, config, log);
  const { revisions, changeLog } = authz;
  const core = await coreModule(stores, config, registry, {
    latest: () => revisions.latest(), applied: () => revisions.applied(), pending: () => changeLog.countPending(),
  }, log);
  authz.checks.onDecision = (allowed, cached) => core.metrics.decision(allowed, cached);
  authz.applier.onUnit = (structure, tuples) => core.metrics.indexUnit(structure, tuples);
  const authentication = authenticationModule(stores, config, authz);
  const database = databaseModule(stores, authz, authentication.clientAuth);
  const settings = await configModule(stores, config, log);
  const communications = communicationsModule(stores, { settings: settings.settings, metrics: core.metrics, log });
  const storage = storageModule(stores, config, log, { authz, settings: settings.settings, clientAuth: authentication.clientAuth });
  const chat = chatModule(stores, authz, settings.settings, log);
  const modules: Module[] = [
    core.module, authz.module, authentication.module, database.module, settings.module,
    stateModule(stores, log, { ...authz, schemas: database.schemas, settings: settings.settings, maxImportBytes: bytesOf(config.STATE_IMPORT_LIMIT) }),
    communications.module,
    chat.module,
    storage.module,
  ];
  for (const m of modules) registry.add(...m.routes);
  for (const m of modules) if (m.probe) core.health.probeModule(m.name, m.probe);
  for (const m of modules) await m.start?.();

  const pipeline = new Pipeline(registry, {
    auth: core.auth, clientAuth: authentication.clientAuth, limits: settings.limits, log, checkReplies: config.CHECK_REPLIES,
    maxInputBytes: bytesOf(config.BODY_LIMIT), inputLimits: inputLimitsOf(config), enabled: (t) => (t === 'rest' ? true : settings.settings.get('core').transports[t]),
    metrics: core.metrics, tracer: tracing?.tracer,
  });
  const listeners = transports({
    config, log, pipeline, metrics: core.metrics, health: core.health, schemas: database.schemas, watch: authz.watch, activity: authz.activity, chat: chat.sockets,
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
