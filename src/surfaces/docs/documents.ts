// The OpenAPI documents built in-process without stores: every module's routes over services that are never called.
// The SDK's types are generated from these (infra/sdk-types.ts); test/integration/sdk.test.ts checks they equal what a
// running service serves, so a module that registers routes here differently from src/app.ts is caught.
import { bytesOf, STATE_IMPORT_LIMIT } from '../../config.js';
import { VERSION } from '../../root.js';
import { Registry, type Route, type Surface } from '../registry.js';
import { authenticationRoutes } from '../routes/authentication.js';
import { authorizationRoutes } from '../routes/authorization.js';
import { chatRoutes } from '../routes/chat.js';
import { clientAuthorizationRoutes } from '../routes/client-authorization.js';
import { communicationsRoutes } from '../routes/communications.js';
import { configRoutes } from '../routes/config.js';
import { coreRoutes } from '../routes/core.js';
import { customEndpointRoutes, functionRoutes } from '../routes/custom-endpoints.js';
import { databaseRoutes } from '../routes/database.js';
import { metricsRoutes } from '../routes/metrics.js';
import { playgroundRoutes } from '../playground/routes.js';
import { stateRoutes } from '../routes/state.js';
import { storageRoutes } from '../routes/storage.js';
import { docsRoutes } from './routes.js';
import { openApiDocument } from './openapi.js';

/** A stand-in for any service: reading a property gives another stand-in, calling one throws (only handlers would). */
function unusable(): never {
  const fail = () => { throw new Error('a route of the offline document was called; it has no service behind it'); };
  const stand: object = new Proxy(fail, { get: () => stand, apply: fail, construct: fail });
  return stand as never;
}

/** The routes of every module, in the order src/app.ts registers them (the documents list paths in that order). */
export function offlineRoutes(): readonly Route[] {
  const registry = new Registry();
  const s = unusable;
  registry.add(
    ...coreRoutes({ health: s(), auth: s(), tokens: s() }), ...metricsRoutes({ metrics: s() }), ...docsRoutes(() => registry.all(), VERSION), ...playgroundRoutes(),
    ...authorizationRoutes({ definitions: s(), relations: s(), relationList: s(), checks: s(), indexer: s(), feed: s(), views: s() }),
    ...clientAuthorizationRoutes({ checks: s(), revisions: s() }),
    ...authenticationRoutes({ clientAuth: s(), teams: s() }),
    ...databaseRoutes({ schemas: s(), documents: s(), functions: functionRoutes(s()) }), ...customEndpointRoutes(s()),
    ...configRoutes({ settings: s() }),
    ...stateRoutes({ state: s(), maxImportBytes: bytesOf(STATE_IMPORT_LIMIT) }),
    ...communicationsRoutes({ inbox: s(), queue: s(), stores: s(), userExists: s() }),
    ...chatRoutes({ rooms: s(), messages: s() }),
    ...storageRoutes(s(), s()),
  );
  return registry.all();
}

/** The surface's OpenAPI document, as GET /openapi.json serves it. */
export const offlineDocument = (surface: Surface): Record<string, unknown> => openApiDocument(surface, offlineRoutes(), VERSION);
