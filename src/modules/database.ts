// The database module: schemas (an authorization-enabled one registers a definition) and their documents, read through the index.
import type { Checks } from '../services/authorization/checks.js';
import type { Definitions } from '../services/authorization/definitions.js';
import type { Relations } from '../services/authorization/relations.js';
import { Documents } from '../services/database/documents.js';
import { Schemas } from '../services/database/schemas.js';
import type { Stores } from '../stores/stores.js';
import { databaseRoutes } from '../surfaces/routes/database.js';
import type { Module } from './module.js';

export function databaseModule(stores: Stores, authz: { definitions: Definitions; relations: Relations; checks: Checks }) {
  const schemas = new Schemas({
    schemas: stores.schemas, docs: stores.documents, definitions: authz.definitions, systemCollections: stores.systemCollections, epoch: stores.epoch('schemas'),
  });
  const documents = new Documents({ schemas, docs: stores.documents, relations: authz.relations, checks: authz.checks });
  const module: Module = { name: 'database', routes: databaseRoutes({ schemas, documents }) };
  return { module, schemas };
}
