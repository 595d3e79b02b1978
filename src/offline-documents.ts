// The OpenAPI documents built in-process with no server: the app's own modules (src/wiring/compose.ts) over the
// in-memory twins, never started, under a fixed default config. The SDK's types are generated from these
// (infra/sdk-types.ts), and there is no second route list to keep in step with src/app.ts.
import { loadConfig } from './config.js';
import { createLogger } from './log.js';
import { composeModules } from './wiring/compose.js';
import { VERSION } from './root.js';
import { memoryStores } from './stores/memory/stores.js';
import { openApiDocument } from './surfaces/docs/openapi.js';
import { Registry, type Route, type Surface } from './surfaces/registry.js';

/** Defaults but for what has none; the secrets are placeholders (no handler is called, nothing listens). */
export const OFFLINE_ENV = {
  MASTER_KEY: 'offline-documents-master-key',
  ADMIN_PASSWORD: 'offline-documents',
  ADMIN_JWT_SECRET: 'offline-documents-admin-jwt-secret-0000',
  CLIENT_JWT_SECRET: 'offline-documents-client-jwt-secret-000',
  LOG_LEVEL: 'silent',
};

/** Every module's routes, in the order src/app.ts registers them (the documents list paths in that order). */
export async function offlineRoutes(): Promise<readonly Route[]> {
  const config = loadConfig(OFFLINE_ENV);
  const stores = memoryStores();
  const registry = new Registry();
  const { modules } = await composeModules(stores, config, registry, createLogger('silent'));
  // Nothing was started; stopping lets go of what building subscribed to (settings, the invalidation bus).
  for (const m of [...modules].reverse()) await m.stop?.();
  await stores.close();
  return registry.all();
}

/** Both surfaces' OpenAPI documents, as GET /openapi.json serves them under the default config. */
export async function offlineDocuments(): Promise<Record<Surface, Record<string, unknown>>> {
  const routes = await offlineRoutes();
  return { admin: openApiDocument('admin', routes, VERSION), client: openApiDocument('client', routes, VERSION) };
}
