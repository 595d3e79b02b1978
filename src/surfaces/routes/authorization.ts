// Admin authorization routes (contract section 4.2 plus grants and list routes): thin adapters over the services.
import { z } from 'zod';
import type { AccessViews } from '../../services/authorization/access-views.js';
import type { ChangeFeed } from '../../services/authorization/change-feed.js';
import type { Checks } from '../../services/authorization/checks.js';
import { definitionView, type Definitions } from '../../services/authorization/definitions.js';
import { RELATION_SORTS, type RelationList } from '../../services/authorization/relation-list.js';
import { relationView, type Relations } from '../../services/authorization/relations.js';
import { authorizationReplies as replies } from './authorization-replies.js';
import { decisionRoutes } from './authorization-decisions.js';
import { listQuery, definitionBody, tupleBody, grantBody, idParam, writeBody, viewName } from './authorization-bodies.js';
import { WRITE_MAX } from '../../services/authorization/tuple-updates.js';
import { consistencyFields, nameText as name, objectText as object, readOptions, revisionText, tuplePart } from './fields.js';
import { route, type Reply, type Route } from '../registry.js';

export interface IndexerControl {
  reconstruct(soft: boolean): Promise<number>;
  status(): Promise<Record<string, unknown>>;
}

const consistency = consistencyFields;
const withRevision = <T extends { revision?: number }>(body: T, status = 200): Reply => ({ status, body,
  headers: body.revision === undefined ? {} : { 'X-Authz-Revision': String(body.revision) } });
const read = readOptions;

/** What the authorization routes call. */
export interface AuthorizationRouteDeps {
  definitions: Definitions;
  relations: Relations;
  relationList: RelationList;
  checks: Checks;
  indexer: IndexerControl;
  feed: ChangeFeed;
  views: AccessViews;
}
const admin = { surface: 'admin' as const, group: 'authorization', auth: 'admin' as const };

export function authorizationRoutes(deps: AuthorizationRouteDeps): Route[] {
  return [
    ...definitionRoutes(deps),
    ...relationRoutes(deps),
    ...relationReadRoutes(deps),
    ...grantRoutes(deps),
    ...decisionRoutes(deps.checks),
    ...feedAndViewRoutes(deps),
    ...indexerRoutes(deps),
  ];
}

/** Resource definitions: create or replace, list, read, patch, delete. */
function definitionRoutes({ definitions }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      grpc: 'CreateResourceDefinition',
      http: { method: 'post', path: '/authorization/resources' },
      output: replies.definitionPut,
      errors: ['INVALID_DEFINITION', 'VERSION_CONFLICT', 'SCHEMA_DEFINITION', 'MODULE_DEFINITION'],
      summary: 'Create or replace a resource definition (writing the one a schema or a module registered needs a version)',
      body: z.strictObject({ name, ...definitionBody }),
      handle: async ({ body }) =>
        withRevision(await definitions.put(
          { name: body.name, relations: body.relations, permissions: body.permissions },
          body.version,
        )),
    }),
    route({
      ...admin,
      grpc: 'ListResourceDefinitions',
      http: { method: 'get', path: '/authorization/resources' },
      output: replies.definitions,
      summary: 'List resource definitions',
      query: z.strictObject(listQuery),
      handle: async ({ query }) => ({ body: await definitions.list(query) }),
    }),
    route({
      ...admin,
      grpc: 'GetResourceDefinition',
      http: { method: 'get', path: '/authorization/resources/:id' },
      output: replies.definition,
      errors: ['NOT_FOUND'],
      summary: 'One definition, by id or name',
      params: idParam,
      handle: async ({ params }) => ({ body: definitionView(await definitions.get(params.id)) }),
    }),
    route({
      ...admin,
      grpc: 'UpdateResourceDefinition',
      http: { method: 'patch', path: '/authorization/resources/:id' },
      output: replies.definitionPut,
      errors: ['NOT_FOUND', 'INVALID_DEFINITION', 'VERSION_CONFLICT', 'SCHEMA_DEFINITION', 'MODULE_DEFINITION'],
      summary: 'Replace relations and permissions; re-indexes the type (the definition a schema or a module registered needs its next version)',
      params: idParam,
      body: z.strictObject(definitionBody),
      handle: async ({ params, body }) => {
        const found = await definitions.get(params.id);
        return withRevision(await definitions.put(
          { name: found.name, relations: body.relations, permissions: body.permissions },
          body.version,
          { mustExist: true },
        ));
      },
    }),
    route({
      ...admin,
      grpc: 'DeleteResourceDefinition',
      http: { method: 'delete', path: '/authorization/resources/:id' },
      output: replies.definitionDeleted,
      errors: ['NOT_FOUND', 'BUILTIN_DEFINITION', 'VERSION_CONFLICT', 'SCHEMA_DEFINITION', 'MODULE_DEFINITION'],
      summary: 'Delete a definition and its index data (the definition a schema or a module registered needs its current version)',
      params: idParam,
      query: z.strictObject({
        version: revisionText.optional().meta({
          description: 'The stored version: needed to delete the definition a schema or a module registered; another version is 409 VERSION_CONFLICT',
        }),
      }),
      handle: async ({ params, query }) => withRevision(await definitions.remove(params.id, query.version)),
    }),
  ];
}

/** Tuples: write one, many or a batch of them; list, read, delete. */
function relationRoutes({ relations }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      grpc: 'CreateRelation',
      http: { method: 'post', path: '/authorization/relations', created: 'when-new' },
      output: replies.relationCreated,
      errors: ['UNKNOWN_TYPE', 'RELATION_NOT_DEFINED', 'RELATION_NOT_ALLOWED'],
      summary: 'Write one tuple, indexed before the answer',
      body: tupleBody,
      handle: async ({ body }) => {
        const r = await relations.create(body);
        return withRevision({ ...relationView(r.record), revision: r.revision }, r.created ? 201 : 200);
      },
    }),
    route({
      ...admin,
      grpc: 'CreateRelations',
      http: { method: 'post', path: '/authorization/relations/many' },
      output: replies.relationsMany,
      errors: ['UNKNOWN_TYPE', 'RELATION_NOT_DEFINED', 'RELATION_NOT_ALLOWED'],
      summary: 'Grant one relation on many resources; indexed in coalesced batches after the answer',
      body: z.strictObject({ subject: tuplePart, relation: tuplePart, resources: z.array(tuplePart).min(1).max(1000) }),
      handle: async ({ body }) => withRevision(await relations.createMany(body.subject, body.relation, body.resources)),
    }),
    route({
      ...admin,
      grpc: 'WriteRelations',
      http: { method: 'post', path: '/authorization/relations/write' },
      output: replies.relationsWritten,
      errors: ['UNKNOWN_TYPE', 'RELATION_NOT_DEFINED', 'RELATION_NOT_ALLOWED'],
      summary: `Create and delete up to ${WRITE_MAX} arbitrary tuples at one revision; indexed in coalesced batches after the answer`,
      body: writeBody,
      handle: async ({ body }) => withRevision(await relations.write(body.updates)),
    }),
  ];
}

/** Tuples: list, read, delete. */
function relationReadRoutes({ relations, relationList, checks }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      grpc: 'ReadRelations',
      http: { method: 'get', path: '/authorization/relations' },
      output: replies.relations,
      errors: ['LIST_TOO_LARGE', 'INDEX_BEHIND'],
      summary: "List and filter tuples, in tuple-text order, from the projection's indexes",
      query: z.strictObject({
        ...listQuery,
        subjectType: name.optional(),
        resourceType: name.optional(),
        sort: z.enum(RELATION_SORTS, { error: `sort must be one of ${RELATION_SORTS.join(', ')} (the orders an index serves)` }).optional()
          .meta({ description: 'computedTuple (the default) or -computedTuple; no other order is served by an index' }),
        search: listQuery.search.meta({ description: [
          'Case-insensitive substring of computedTuple, from a text index. Up to 10,000 matches are sorted and counted exactly;',
          'past that the list is read in order (at most 20,000 tuples) for the page, the count is a lower bound (countCapped),',
          'and a page not found within them is 422 LIST_TOO_LARGE: narrow the search.',
        ].join(' ') }),
        ...consistency,
      }).meta({ description: [
        'The page comes from the projection in Neo4j: what the index has applied. A single write or delete shows when it returns;',
        'a bulk write once indexed (consistency=at_least_as_fresh&revision=N waits for it). count is exact with one type filter or',
        'none, or up to 10,000 otherwise (countCapped: the count is a lower bound).',
      ].join(' ') }),
      handle: async ({ query }) => {
        await checks.settle(read(query));
        return { body: await relationList.list(query) };
      },
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/authorization/relations/:id' },
      output: replies.relation,
      errors: ['NOT_FOUND'],
      summary: 'One tuple by id',
      params: idParam,
      handle: async ({ params }) => ({ body: await relations.get(params.id) }),
    }),
    route({
      ...admin,
      grpc: 'DeleteRelation',
      http: { method: 'delete', path: '/authorization/relations/:id' },
      output: replies.relationDeleted,
      errors: ['NOT_FOUND'],
      summary: 'Delete a tuple, re-indexed before the answer',
      params: idParam,
      handle: async ({ params }) => withRevision(await relations.remove(params.id)),
    }),
  ];
}

/** Direct grants: grant and revoke. */
function grantRoutes({ relations }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      grpc: 'GrantPermission',
      http: { method: 'post', path: '/authorization/permissions/grant', created: 'when-new' },
      output: replies.granted,
      errors: ['UNKNOWN_TYPE', 'PERMISSION_NOT_DEFINED'],
      summary: 'Direct grant subject#permission@resource',
      body: grantBody,
      handle: async ({ body }) => {
        const r = await relations.grant({ subject: body.subject, relation: body.permission, resource: body.resource });
        return withRevision(r, r.created ? 201 : 200);
      },
    }),
    route({
      ...admin,
      grpc: 'RevokePermission',
      http: { method: 'delete', path: '/authorization/permissions/grant' },
      output: replies.revoked,
      errors: ['NOT_FOUND'],
      summary: 'Revoke a direct grant',
      body: grantBody,
      handle: async ({ body }) => withRevision(await relations.revoke({ subject: body.subject, relation: body.permission, resource: body.resource })),
    }),
  ];
}

/** The change feed and access-list views. */
function feedAndViewRoutes({ feed, views }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      grpc: 'Watch',
      http: { method: 'get', path: '/authorization/changes' },
      output: replies.changes,
      summary: 'Tuple, grant and definition changes after a revision, in revision order (the change feed)',
      query: z.strictObject({ after: revisionText.default(0), limit: z.coerce.number().int().min(1).max(1000).default(100) }),
      handle: async ({ query }) => ({ body: await feed.page(query.after, query.limit) }),
    }),

    route({
      ...admin,
      grpc: 'CreateAccessView',
      http: { method: 'post', path: '/authorization/views', created: 'when-new' },
      output: replies.accessView,
      errors: ['LIST_TOO_LARGE', 'INDEX_BEHIND'],
      summary: 'Create or redefine a named access-list view (the objects of a type a subject may act on) and compute it',
      body: z.strictObject({ name: viewName, subject: object, permission: name, resourceType: name }),
      handle: async ({ body }) => {
        const r = await views.create(body);
        return { status: r.created ? 201 : 200, body: r.view };
      },
    }),
    route({
      ...admin,
      grpc: 'ListAccessViews',
      http: { method: 'get', path: '/authorization/views' },
      output: replies.accessViews,
      summary: 'List access-list views',
      query: z.strictObject({ skip: listQuery.skip, limit: listQuery.limit }),
      handle: async ({ query }) => ({ body: await views.list(query.skip, query.limit) }),
    }),
    route({
      ...admin,
      grpc: 'ReadAccessView',
      http: { method: 'get', path: '/authorization/views/:name' },
      output: replies.accessViewPage,
      errors: ['NOT_FOUND'],
      summary: "One page of an access-list view's objects, as of its last refresh",
      params: z.strictObject({ name: viewName }),
      query: z.strictObject({ skip: listQuery.skip, limit: listQuery.limit }),
      handle: async ({ params, query }) => ({ body: await views.page(params.name, query.skip, query.limit) }),
    }),
    route({
      ...admin,
      grpc: 'RefreshAccessView',
      http: { method: 'post', path: '/authorization/views/:name/refresh' },
      output: replies.accessView,
      errors: ['NOT_FOUND', 'LIST_TOO_LARGE', 'INDEX_BEHIND'],
      summary: 'Compute an access-list view again from the index',
      params: z.strictObject({ name: viewName }),
      handle: async ({ params }) => ({ body: await views.refresh(params.name) }),
    }),
    route({
      ...admin,
      grpc: 'DeleteAccessView',
      http: { method: 'delete', path: '/authorization/views/:name' },
      output: replies.accessViewDeleted,
      errors: ['NOT_FOUND'],
      summary: 'Delete an access-list view',
      params: z.strictObject({ name: viewName }),
      handle: async ({ params }) => ({ body: await views.remove(params.name) }),
    }),
  ];
}

/** The indexer: rebuild and status. */
function indexerRoutes({ indexer }: AuthorizationRouteDeps): Route[] {
  return [
    route({
      ...admin,
      http: { method: 'post', path: '/authorization/indexer/reconstruct' },
      output: replies.reconstruct,
      summary: 'Rebuild the index in the background (soft or hard)',
      body: z.strictObject({ soft: z.boolean().optional() }),
      handle: async ({ body }) => withRevision({ result: 'ok', revision: await indexer.reconstruct(body.soft ?? false) }),
    }),
    route({
      ...admin,
      http: { method: 'get', path: '/authorization/indexer/status' },
      output: replies.indexStatus,
      summary: 'Pending changes, the applied revision and any rebuild in progress',
      handle: async () => ({ body: await indexer.status() }),
    }),
  ];
}
