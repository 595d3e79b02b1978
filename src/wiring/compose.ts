// Every module of the service, built over the stores in registration order: the one module list. The app serves it;
// the offline OpenAPI documents (src/offline-documents.ts) read its routes, so the two cannot list routes differently.
import { bytesOf, type Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Stores } from '../stores/ports/stores.js';
import type { Registry } from '../surfaces/registry.js';
import { authenticationModule } from './authentication.js';
import { authorizationModule } from './authorization.js';
import { chatModule } from './chat.js';
import { communicationsModule } from './communications.js';
import { configModule } from './config.js';
import { coreModule } from './core.js';
import { databaseModule } from './database.js';
import type { Module } from './module.js';
import { stateModule } from './state.js';
import { storageModule } from './storage.js';

/** Builds the modules and adds their routes to `registry` (the order documents list paths in); starts nothing. */
export async function composeModules(stores: Stores, config: Config, registry: Registry, log: Logger) {
  const authz = await authorizationModule(stores, config, log);
  const { revisions, changeLog } = authz;
  const core = await coreModule(stores, config, registry, {
    latest: () => revisions.latest(),
    applied: () => revisions.applied(),
    pending: () => changeLog.countPending(),
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
    core.module,
    authz.module,
    authentication.module,
    database.module,
    settings.module,
    stateModule(stores, log, { ...authz, schemas: database.schemas, settings: settings.settings, maxImportBytes: bytesOf(config.STATE_IMPORT_LIMIT) }),
    communications.module,
    chat.module,
    storage.module,
  ];
  for (const m of modules) registry.add(...m.routes);
  return { modules, authz, core, authentication, database, settings, chat };
}
