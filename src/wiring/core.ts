// The core module: operator credentials (the first admin, JWTs, API tokens), health, metrics, the API's own docs and the playground.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { VERSION } from '../root.js';
import { bootstrapAdmin } from '../services/admin-bootstrap.js';
import { AdminAuth } from '../services/admin-auth.js';
import { ApiTokens } from '../services/api-tokens.js';
import { Health } from '../services/health.js';
import { Metrics, type IndexProgress } from '../services/metrics.js';
import type { Stores } from '../stores/ports/stores.js';
import { docsRoutes } from '../surfaces/docs/routes.js';
import { playgroundRoutes } from '../surfaces/playground/routes.js';
import type { Registry } from '../surfaces/registry.js';
import { coreRoutes } from '../surfaces/routes/core.js';
import { metricsRoutes } from '../surfaces/routes/metrics.js';
import type { Module } from './module.js';

export async function coreModule(stores: Stores, config: Config, registry: Registry, progress: IndexProgress, log: Logger) {
  const bootstrap = await bootstrapAdmin(stores.admins, config.ADMIN_USERNAME, config.ADMIN_PASSWORD);
  const auth = new AdminAuth({
    admins: stores.admins,
    tokens: stores.apiTokens,
    masterKey: config.MASTER_KEY,
    jwtSecret: config.ADMIN_JWT_SECRET,
    jwtTtlSeconds: config.ADMIN_JWT_TTL_SECONDS,
    bootstrapAdminId: () => bootstrap._id,
  });
  const health = new Health(stores.probes(config.READY_CHECK_REDIS), config.READY_REQUIRED_MODULES, () => registry.groups(), log);
  const metrics = new Metrics(progress);
  const module: Module = {
    name: 'core',
    routes: [
      ...coreRoutes({ health, auth, tokens: new ApiTokens(stores.apiTokens) }),
      ...metricsRoutes({ metrics }),
      ...docsRoutes(() => registry.all(), VERSION),
      ...playgroundRoutes(),
    ],
  };
  return { module, auth, health, metrics };
}
