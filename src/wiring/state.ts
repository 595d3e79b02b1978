// The state module: GitOps export and import of definitions, schemas, config and (optionally) tuples and grants.
import type { Logger } from '../log.js';
import type { Definitions } from '../services/authorization/definitions.js';
import type { ModelSource } from '../services/authorization/model-source.js';
import type { Relations } from '../services/authorization/relations.js';
import type { Revisions } from '../services/authorization/revisions.js';
import type { Settings } from '../services/config/settings.js';
import type { Schemas } from '../services/database/schemas.js';
import { exclusively } from '../services/exclusive.js';
import { State } from '../services/state/state.js';
import type { Stores } from '../stores/ports/stores.js';
import { stateRoutes } from '../surfaces/routes/state.js';
import type { Module } from './module.js';

export function stateModule(stores: Stores, log: Logger, deps: {
  definitions: Definitions;
  schemas: Schemas;
  settings: Settings;
  relations: Relations;
  models: ModelSource;
  revisions: Revisions;
  /** STATE_IMPORT_LIMIT, in bytes. */
  maxImportBytes: number;
}): Module {
  const state = new State({
    store: stores.authz,
    definitions: deps.definitions,
    schemas: deps.schemas,
    settings: deps.settings,
    relations: deps.relations,
    models: deps.models,
    latest: () => deps.revisions.latest(),
    log,
    maxImportBytes: deps.maxImportBytes,
    exclusive: exclusively(() => stores.lease('state-import'), 10_000, 'A state import'),
  });
  return { name: 'state', routes: stateRoutes({ state, maxImportBytes: deps.maxImportBytes }) };
}
