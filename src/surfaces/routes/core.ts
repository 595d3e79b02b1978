// Admin core routes: health, login and API tokens.
import { z } from 'zod';
import type { AdminAuth } from '../../services/admin-auth.js';
import type { ApiTokens } from '../../services/api-tokens.js';
import type { Health } from '../../services/health.js';
import { time } from './reply-parts.js';
import { route, type Route } from '../registry.js';

// This file's reply bodies (documented in OpenAPI, checked under CHECK_REPLIES).
const check = z.object({ status: z.enum(['pass', 'fail', 'warn']), durationMs: z.number(), message: z.string().optional() });
const apiToken = z.object({ id: z.string(), name: z.string(), tokenPrefix: z.string(), expiresAt: time }).meta({ id: 'ApiToken' });
const replies = {
  live: z.object({ status: z.literal('alive'), message: z.string() }),
  ready: z.object({ status: z.enum(['ready', 'not-ready']), checks: z.record(z.string(), check) }),
  token: z.object({ token: z.string() }),
  apiTokenCreated: apiToken.extend({ token: z.string().meta({ description: 'The plaintext, shown this once' }) }),
  apiTokens: z.object({ tokens: z.array(apiToken.extend({ lastUsedAt: time.nullable() })), count: z.number().int() }),
  apiTokenDeleted: z.object({ deleted: apiToken }),
} as const;

export function coreRoutes(deps: { health: Health; auth: AdminAuth; tokens: ApiTokens }): Route[] {
  const { health, auth, tokens } = deps;
  return [
    route({
      surface: 'admin',
      http: { method: 'get', path: '/live' },
      output: replies.live,
      group: 'core',
      auth: 'none',
      summary: 'Shallow liveness',
      handle: async () => ({ body: health.live() }),
    }),
    route({
      surface: 'admin',
      http: { method: 'get', path: '/ready', produces: ['application/json', 'text/plain'] },
      output: replies.ready,
      group: 'core',
      auth: 'none',
      // Each call probes every store (at most once a second, see Health): counted per caller like client routes.
      limited: true,
      summary: 'Deep readiness: one check per dependency (a failed store is only named; why is in the log); 503 when not ready',
      query: z.strictObject({ legacy: z.enum(['true', 'false']).optional() }),
      handle: async ({ query, headers }) => {
        const report = await health.ready();
        const status = report.status === 'ready' ? 200 : 503;
        const accept = headers.accept ?? '';
        if (query.legacy === 'true' || (accept.includes('text/plain') && !accept.includes('application/json'))) {
          return { status, text: report.status === 'ready' ? 'online' : 'not ready' };
        }
        return { status, body: report };
      },
    }),
    route({
      surface: 'admin',
      http: { method: 'post', path: '/login', bodyLimit: '16kb' },
      output: replies.token,
      group: 'core',
      auth: 'none',
      mcp: false,
      login: true,
      summary: 'Admin login: returns an admin JWT',
      body: z.strictObject({ username: z.string().min(1).max(200), password: z.string().min(1).max(1024) }),
      handle: async ({ body }) => ({ body: await auth.login(body.username, body.password) }),
    }),
    route({
      surface: 'admin',
      http: { method: 'post', path: '/api-tokens', created: 'always' },
      output: replies.apiTokenCreated,
      errors: ['FORBIDDEN'],
      group: 'core',
      auth: 'admin',
      summary: 'Create an API token; the plaintext is returned only here',
      body: z.strictObject({ name: z.string().min(1).max(200), expiresInDays: z.number().int().min(1).max(3650).optional() }),
      handle: async ({ body, principal }) => ({ status: 201, body: await tokens.create(principal!, body.name, body.expiresInDays) }),
    }),
    route({
      surface: 'admin',
      http: { method: 'get', path: '/api-tokens' },
      output: replies.apiTokens,
      group: 'core',
      auth: 'admin',
      summary: 'List your API tokens (metadata only)',
      handle: async ({ principal }) => ({ body: await tokens.list(principal!) }),
    }),
    route({
      surface: 'admin',
      http: { method: 'delete', path: '/api-tokens/:id' },
      output: replies.apiTokenDeleted,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      group: 'core',
      auth: 'admin',
      summary: 'Revoke one of your API tokens',
      params: z.strictObject({ id: z.string().min(1).max(200) }),
      handle: async ({ params, principal }) => ({ body: await tokens.revoke(principal!, params.id) }),
    }),
  ];
}
