// Config modules for operators: read all or one, PATCH one (merged, validated whole, applied in every process without restart).
import { z } from 'zod';
import type { Settings } from '../../services/config/settings.js';
import { route, type Route } from '../registry.js';

const replies = {
  config: z.record(z.string(), z.record(z.string(), z.unknown())),
  configModule: z.record(z.string(), z.unknown()),
} as const;

const moduleParam = z.strictObject({ module: z.string().min(1).max(64) });

export function configRoutes(deps: { settings: Settings }): Route[] {
  const { settings } = deps;
  const admin = { surface: 'admin' as const, group: 'core', auth: 'admin' as const };
  return [
    route({ ...admin, http: { method: 'get', path: '/config' }, output: replies.config, summary: 'Every config module', handle: async () => ({ body: await settings.all() }) }),
    route({
      ...admin,
      http: { method: 'get', path: '/config/:module' },
      output: replies.configModule,
      errors: ['NOT_FOUND'],
      summary: "One config module's settings",
      params: moduleParam,
      handle: async ({ params }) => ({ body: await settings.one(params.module) }),
    }),
    route({
      ...admin,
      http: { method: 'patch', path: '/config/:module' },
      output: replies.configModule,
      errors: ['NOT_FOUND', 'BUSY'],
      summary: 'Change settings of a module: objects merge, null removes a key',
      params: moduleParam,
      body: z.record(z.string(), z.unknown()),
      handle: async ({ params, body }) => ({ body: await settings.patch(params.module, body) }),
    }),
  ];
}
