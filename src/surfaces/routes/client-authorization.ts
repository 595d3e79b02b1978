// Client /authorization/check and /role (contract 4.1): the subject is the caller, never a parameter.
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Checks, ReadOptions } from '../../services/authorization/checks.js';
import type { Revisions } from '../../services/authorization/revisions.js';
import { authorizationReplies as replies } from './authorization-replies.js';
import { route, type Route } from '../registry.js';
import { consistencyFields, objectText as object, readOptions } from './fields.js';

const action = z.string().min(1).max(200);

/** Decisions one call (or one socket subscription message) may ask for. */
export const DECISIONS_MAX = 100;
export const decisionItems = z.array(z.strictObject({ action, resource: object })).min(1).max(DECISIONS_MAX);
/** In a JSON body (the decisions route, a socket subscription) the revision is a number, as on the admin bulk check. */
export const decisionFreshness = { consistency: consistencyFields.consistency, revision: z.number().int().min(0).optional() };

export function clientAuthorizationRoutes(deps: { checks: Checks; revisions: Revisions }): Route[] {
  const { checks, revisions } = deps;
  const user = { surface: 'client' as const, group: 'authorization', auth: 'user' as const };
  // A scope the caller may not use is a 403, not a quiet "false": the caller asked for something it cannot do. When the
  // check names a type or action the model lacks, the 403 says so too, so a typo is not hidden behind the scope.
  const scoped = async (me: string, scope: string | undefined, needed: string, opts: ReadOptions = {}, asked?: { action: string; resource: string }) => {
    if (scope !== undefined && !(await checks.can(me, needed, scope, opts))) {
      const why = asked && (await checks.answer(false, asked.action, asked.resource)).reason;
      throw new AppError('FORBIDDEN', `You need ${needed} on the scope ${scope}${why ? `; and ${why.code}: ${why.message}` : ''}`,
        why ? [{ path: why.code === 'UNKNOWN_TYPE' ? 'resource' : 'action', ...why }] : []);
    }
    return scope ?? me;
  };
  return [
    route({
      ...user,
      http: { method: 'get', path: '/authorization/check', lean: true },
      output: replies.allowed,
      errors: ['FORBIDDEN', 'UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED', 'INDEX_BEHIND'],
      summary: 'Whether you (or a scope you act for) may do an action on a resource; consistency=at_least_as_fresh&revision=N sees every write up to N',
      query: z.strictObject({ action, resource: object, scope: object.optional(), ...consistencyFields }),
      handle: async ({ query, user: u }) => {
        // The wait is paid once, for the scope's check and the decision alike.
        await checks.settle(readOptions(query));
        const opts = { ...readOptions(query), settled: true };
        const subject = await scoped(`User:${u!.userId}`, query.scope, query.action, opts, query);
        return { body: await checks.check(subject, query.action, query.resource, opts) };
      },
    }),
    route({
      ...user,
      http: { method: 'post', path: '/authorization/decisions' },
      output: replies.decisions,
      errors: ['INDEX_BEHIND'],
      summary: `Your decisions on up to ${DECISIONS_MAX} (action, resource) pairs, with the revision they hold at (the socket's decision watch starts here)`,
      body: z.strictObject({ items: decisionItems, ...decisionFreshness }),
      // Each item is a check: a call of N items counts as N against the rate limit, on every transport.
      cost: ({ body }) => body.items.length,
      handle: async ({ body, user: u }) => {
        const me = `User:${u!.userId}`;
        await checks.settle(readOptions(body));
        const opts = { ...readOptions(body), settled: true };
        // Read before the checks: each answer reflects at least every change up to this revision.
        const revision = await revisions.settled();
        const items = await Promise.all(body.items.map(async (i) => ({ ...i, ...await checks.check(me, i.action, i.resource, opts), revision })));
        return { body: { items } };
      },
    }),
    route({
      ...user,
      http: { method: 'get', path: '/authorization/role/:resource' },
      output: replies.roles,
      errors: ['FORBIDDEN', 'INDEX_BEHIND'],
      summary: "Your direct relations (or a scope's) on a resource",
      params: z.strictObject({ resource: object }),
      query: z.strictObject({ scope: object.optional(), ...consistencyFields }),
      handle: async ({ params, query, user: u }) => {
        await checks.settle(readOptions(query));
        const subject = await scoped(`User:${u!.userId}`, query.scope, 'read', { ...readOptions(query), settled: true });
        return { body: { roles: await checks.directRelations(subject, params.resource) } };
      },
    }),
  ];
}
