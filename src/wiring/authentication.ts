// The authentication module: client accounts and tokens, and teams (whose membership is tuples).
import type { Config } from '../config.js';
import type { Checks } from '../services/authorization/checks.js';
import type { Relations } from '../services/authorization/relations.js';
import { ClientAuth } from '../services/client-auth.js';
import { Teams } from '../services/teams.js';
import type { Stores } from '../stores/ports/stores.js';
import { authenticationRoutes } from '../surfaces/routes/authentication.js';
import type { Module } from './module.js';

/** How often expired refresh tokens are deleted. */
const PURGE_EVERY_MS = 10 * 60_000;

export function authenticationModule(stores: Stores, config: Config, authz: { relations: Relations; checks: Checks }) {
  const clientAuth = new ClientAuth({
    users: stores.users,
    refresh: stores.refreshTokens,
    deny: stores.denyList,
    jwtSecret: config.CLIENT_JWT_SECRET,
    accessTtlSeconds: config.CLIENT_ACCESS_TTL_SECONDS,
    refreshTtlSeconds: config.CLIENT_REFRESH_TTL_SECONDS,
  });
  const teams = new Teams({ teams: stores.teams, users: stores.users, store: stores.authz, relations: authz.relations, checks: authz.checks });
  // Each process purges now and then; the deletes are idempotent, so several processes need no lease.
  let purging: NodeJS.Timeout | undefined;
  const purge = () => {
    clientAuth.purgeExpired().catch(() => undefined);
  }; // a store outage: the next round retries
  const module: Module = {
    name: 'authentication',
    routes: authenticationRoutes({ clientAuth, teams }),
    start() {
      purge();
      purging = setInterval(purge, PURGE_EVERY_MS).unref();
    },
    stop() {
      clearInterval(purging);
    },
  };
  return { module, clientAuth };
}
