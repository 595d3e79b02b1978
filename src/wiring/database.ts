// The database module: schemas (an authorization-enabled one registers a definition) and their documents, read through the index.
import type { Checks } from '../services/authorization/checks.js';
import type { Definitions } from '../services/authorization/definitions.js';
import type { Relations } from '../services/authorization/relations.js';
import type { ClientAuth } from '../services/client-auth.js';
import { CustomEndpoints } from '../services/database/custom-endpoints.js';
import { Documents } from '../services/database/documents.js';
import { EndpointCalls } from '../services/database/endpoint-calls.js';
import { Schemas } from '../services/database/schemas.js';
import type { Stores } from '../stores/ports/stores.js';
import { customEndpointRoutes, functionRoutes } from '../surfaces/routes/custom-endpoints.js';
import { databaseRoutes } from '../surfaces/routes/database.js';
import type { Module } from './module.js';

export function databaseModule(stores: Stores, authz: { definitions: Definitions; relations: Relations; checks: Checks }, clientAuth: ClientAuth) {
  const schemas = new Schemas({
    schemas: stores.schemas,
    docs: stores.documents,
    definitions: authz.definitions,
    systemCollections: stores.systemCollections,
    epoch: stores.epoch('schemas'),
  });
  const documents = new Documents({ schemas, docs: stores.documents, relations: authz.relations, checks: authz.checks });
  // Custom endpoints: definitions an operator writes, run by the Documents service (so authorized as documents are).
  const endpoints = new CustomEndpoints({ store: stores.customEndpoints, schemas });
  const functions = functionRoutes(new EndpointCalls({ endpoints, schemas, documents, clientAuth }));
  const module: Module = { name: 'database', routes: [...databaseRoutes({ schemas, documents, functions }), ...customEndpointRoutes(endpoints)] };
  return { module, schemas };
}
