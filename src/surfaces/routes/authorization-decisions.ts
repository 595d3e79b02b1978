// Admin decisions (contract section 4.2): check one or many, explain, list objects and subjects; thin adapters over Checks.
import { z } from 'zod';
import type { Checks, ReadOptions } from '../../services/authorization/checks.js';
import { authorizationReplies as replies } from './authorization-replies.js';
import { listQuery } from './authorization-bodies.js';
import { consistencyFields as consistency, nameText as name, objectText as object, readOptions as read } from './fields.js';
import { route, type Route } from '../registry.js';

/** Checks one bulk call may carry. */
export const BULK_MAX = 100;
const admin = { surface: 'admin' as const, group: 'authorization', auth: 'admin' as const };

/** Decisions: check one or many, explain, list objects and subjects. */
export function decisionRoutes(checks: Checks): Route[] {
  /** Admin scope rule: with a scope, the subject needs a direct tuple or grant on it, then the scope is asked. */
  const adminCan = async (q: { subject: string; permission: string; resource: string; scope?: string }, opts: ReadOptions) => {
    if (q.scope && !(await checks.hasDirectOn(q.subject, q.scope))) return checks.answer(false, q.permission, q.resource);
    return checks.check(q.scope ?? q.subject, q.permission, q.resource, opts);
  };
  return [
    route({
      ...admin,
      grpc: 'Can',
      http: { method: 'get', path: '/authorization/permissions/can', lean: true },
      output: replies.allowed,
      errors: ['UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED', 'INDEX_BEHIND'],
      summary: 'Decide subject, permission, resource',
      query: z.strictObject({ subject: object, permission: name, resource: object, scope: object.optional(), ...consistency }),
      handle: async ({ query }) => ({ body: await adminCan(query, read(query)) }),
    }),
    route({
      ...admin,
      grpc: 'CheckBulk',
      http: { method: 'post', path: '/authorization/permissions/bulk' },
      output: replies.bulkCheck,
      errors: ['INDEX_BEHIND'],
      summary: `Decide up to ${BULK_MAX} (subject, permission, resource) at once, answers in order`,
      body: z.strictObject({
        items: z.array(z.strictObject({ subject: object, permission: name, resource: object, scope: object.optional() })).min(1).max(BULK_MAX),
        consistency: consistency.consistency,
        revision: z.number().int().min(0).optional(),
      }),
      handle: async ({ body }) => {
        // The wait for a revision is paid once; the checks then share the index's grouped queries.
        const opts = { ...read(body), settled: true };
        await checks.settle(read(body));
        return { body: { results: await Promise.all(body.items.map((i) => adminCan(i, opts))) } };
      },
    }),
    route({
      ...admin,
      grpc: 'Evaluate',
      http: { method: 'get', path: '/authorization/permissions/evaluate' },
      output: replies.evaluation,
      errors: ['UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED', 'INDEX_BEHIND'],
      summary: 'Explain a decision: paths and raw index records',
      query: z.strictObject({ subject: object, permission: name, resource: object, scope: object.optional(), ...consistency }),
      handle: async ({ query }) => {
        if (query.scope && !(await checks.hasDirectOn(query.subject, query.scope))) {
          return { body: { allowed: false, reason: `${query.subject} has no direct tuple or grant on the scope ${query.scope}` } };
        }
        return { body: await checks.evaluate(query.scope ?? query.subject, query.permission, query.resource, read(query)) };
      },
    }),
    route({
      ...admin,
      grpc: 'LookupResources',
      http: { method: 'get', path: '/authorization/permissions/objects' },
      output: replies.objects,
      errors: ['UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED', 'INDEX_BEHIND'],
      summary: 'Objects of a type the subject may act on, paged',
      query: z.strictObject({ subject: object, permission: name, resourceType: name, skip: listQuery.skip, limit: listQuery.limit, ...consistency }),
      handle: async ({ query }) => ({
        body: await checks.listObjects(query.subject, query.permission, query.resourceType, query.skip, query.limit, read(query)),
      }),
    }),
    route({
      ...admin,
      grpc: 'LookupSubjects',
      http: { method: 'get', path: '/authorization/permissions/subjects' },
      output: replies.subjects,
      errors: ['UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED', 'INDEX_BEHIND'],
      summary: 'Subjects of a type that may act on a resource, paged',
      query: z.strictObject({ permission: name, resource: object, subjectType: name, skip: listQuery.skip, limit: listQuery.limit, ...consistency }),
      handle: async ({ query }) => ({
        body: await checks.listSubjects(query.permission, query.resource, query.subjectType, query.skip, query.limit, read(query)),
      }),
    }),
  ];
}
