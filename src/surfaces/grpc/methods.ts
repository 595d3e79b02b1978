// How each gRPC method translates: its request into its route's input, the reply into its response. Which route a
// method serves is said by the route (`grpc` in the registry); grpc/bindings.ts joins the two.
import type { RawInput } from '../pipeline.js';
import type { Reply } from '../registry.js';
import { fromNames, toNames } from './names.js';

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface UnaryMethod {
  kind: 'unary';
  input(req: Msg): RawInput;
  output(body: Msg, reply: Reply): Msg;
}
/** Streams every item of a paged list route, page after page (no cap): `items` picks the page's items, `message` wraps one. */
export interface PagedMethod {
  kind: 'paged';
  input(req: Msg): RawInput;
  items(body: Msg): string[];
  message(item: string, page: Msg): Msg;
}
/** Follows the change feed route from a revision. */
export interface WatchMethod {
  kind: 'watch';
  after(req: Msg): number;
}
export type Method = UnaryMethod | PagedMethod | WatchMethod;

/** Query values as REST sends them: strings, absent when empty (proto3 sends zero values for what was not set). */
const q = (o: Msg) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== 0 && v !== null).map(([k, v]) => [k, String(v)]));
/**
 * CONSISTENCY_UNSPECIFIED is the route's default. proto3 enums are open: a number the proto does not name arrives as
 * that number, and is passed on as text for the route to refuse.
 */
const consistency = (
  c: string | number | undefined,
) => (typeof c === 'number' ? (c === 0 ? undefined : String(c)) : c && c !== 'CONSISTENCY_UNSPECIFIED' ? c.toLowerCase() : undefined);
/** OPERATION_CREATE as `create`; OPERATION_UNSPECIFIED as absent and numbers the proto does not name as text, for the route to refuse. */
const operation = (
  o: string | number | undefined,
) => (typeof o === 'number' ? String(o) : o && o !== 'OPERATION_UNSPECIFIED' ? o.replace(/^OPERATION_/, '').toLowerCase() : undefined);
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === undefined || v === null ? '' : String(v));

const relation = (r: Msg) => ({
  id: r._id,
  subject: r.subject,
  relation: r.relation,
  resource: r.resource,
  computedTuple: r.computedTuple,
  revision: r.revision ?? 0,
  createdAt: iso(r.createdAt),
});
const definition = (d: Msg) => ({
  id: d._id,
  name: d.name,
  relations: toNames(d.relations),
  permissions: toNames(d.permissions),
  version: d.version,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt),
});
const view = (v: Msg) => ({ ...v, createdAt: iso(v.createdAt), refreshedAt: iso(v.refreshedAt) });
const canQuery = (r: Msg) => ({
  query: q({ subject: r.subject, permission: r.permission, resource: r.resource, scope: r.scope, consistency: consistency(r.consistency), revision: r.revision }),
});
const defBody = (r: Msg) => ({ relations: fromNames(r.relations), permissions: fromNames(r.permissions),
  ...(r.version === undefined || r.version === null ? {} : { version: r.version }) });
const listQuery = (r: Msg) => ({ query: q({ skip: r.skip, limit: r.limit, search: r.search, sort: r.sort }) });
const json = (v: unknown) => (v === undefined || v === null ? '' : JSON.stringify(v));

export const GRPC_METHODS: Record<string, Method> = {
  Can: { kind: 'unary', input: canQuery, output: (b) => ({ allowed: b.allowed, reason: b.reason }) },
  CheckBulk: {
    kind: 'unary',
    input: (r) => ({ body: {
      items: (r.items ?? []).map((i: Msg) => ({ subject: i.subject, permission: i.permission, resource: i.resource, ...(i.scope ? { scope: i.scope } : {}) })),
      ...(consistency(r.consistency) ? { consistency: consistency(r.consistency) } : {}),
      ...(r.revision ? { revision: r.revision } : {}),
    } }),
    output: (b) => ({ results: b.results }),
  },
  Evaluate: {
    kind: 'unary',
    input: canQuery,
    output: (b) => ({
      allowed: b.allowed,
      assigned: b.assigned ?? false,
      reason: b.reason ?? '',
      paths: b.paths ?? [],
      subjectIndexJson: json(b.subjectIndex),
      objectIndexJson: json(b.objectIndex),
      reasonCode: b.reasonCode ?? '',
      didYouMean: b.didYouMean ?? '',
    }),
  },
  LookupResources: {
    kind: 'paged',
    input: (r) => ({ query: q({ subject: r.subject, permission: r.permission, resourceType: r.resourceType, consistency: consistency(r.consistency), revision: r.revision }) }),
    items: (b) => b.objects,
    message: (object) => ({ object }),
  },
  LookupSubjects: {
    kind: 'paged',
    input: (r) => ({ query: q({ permission: r.permission, resource: r.resource, subjectType: r.subjectType, consistency: consistency(r.consistency), revision: r.revision }) }),
    items: (b) => b.subjects,
    message: (subject, page) => ({ subject, public: page.public === true }),
  },
  CreateRelation: {
    kind: 'unary',
    input: (r) => ({ body: { subject: r.subject, relation: r.relation, resource: r.resource } }),
    output: (b, reply) => ({ relation: relation(b), created: reply.status === 201, revision: b.revision }),
  },
  CreateRelations: {
    kind: 'unary',
    input: (r) => ({ body: { subject: r.subject, relation: r.relation, resources: r.resources } }),
    output: (b) => ({ relations: b.relations.map(relation), created: b.created, existing: b.existing, revision: b.revision }),
  },
  WriteRelations: {
    kind: 'unary',
    input: (r) => ({
      body: { updates: (r.updates ?? []).map((u: Msg) => ({ operation: operation(u.operation), subject: u.subject, relation: u.relation, resource: u.resource })) },
    }),
    output: (b) => ({ created: b.created, existing: b.existing, deleted: b.deleted, missing: b.missing, revision: b.revision }),
  },
  DeleteRelation: {
    kind: 'unary',
    input: (r) => ({ params: { id: r.id } }),
    output: (b) => ({ deleted: relation(b.deleted), revision: b.revision }),
  },
  ReadRelations: {
    kind: 'unary',
    input: (r) => ({
      query: q({ skip: r.skip, limit: r.limit, search: r.search, subjectType: r.subjectType, resourceType: r.resourceType, sort: r.sort, consistency: consistency(r.consistency),
        revision: r.revision }),
    }),
    output: (b) => ({ relations: b.relations.map(relation), count: b.count, countCapped: b.countCapped }),
  },
  GrantPermission: {
    kind: 'unary',
    input: (r) => ({ body: { subject: r.subject, permission: r.permission, resource: r.resource } }),
    output: (b) => ({ created: b.created, revision: b.revision }),
  },
  RevokePermission: {
    kind: 'unary',
    input: (r) => ({ body: { subject: r.subject, permission: r.permission, resource: r.resource } }),
    output: (b) => ({ revision: b.revision }),
  },
  CreateResourceDefinition: {
    kind: 'unary',
    input: (r) => ({ body: { name: r.name, ...defBody(r) } }),
    output: (b) => ({ status: b.status, resourceDefinition: definition(b.resourceDefinition), revision: b.revision ?? 0 }),
  },
  UpdateResourceDefinition: {
    kind: 'unary',
    input: (r) => ({ params: { id: r.name }, body: defBody(r) }),
    output: (b) => ({ status: b.status, resourceDefinition: definition(b.resourceDefinition), revision: b.revision ?? 0 }),
  },
  GetResourceDefinition: { kind: 'unary', input: (r) => ({ params: { id: r.id } }), output: definition },
  ListResourceDefinitions: {
    kind: 'unary',
    input: listQuery,
    output: (b) => ({ resources: b.resources.map(definition), count: b.count }),
  },
  DeleteResourceDefinition: {
    kind: 'unary',
    input: (r) => ({ params: { id: r.id } }),
    output: (b) => ({ deleted: definition(b.deleted), revision: b.revision }),
  },
  CreateAccessView: {
    kind: 'unary',
    input: (r) => ({ body: { name: r.name, subject: r.subject, permission: r.permission, resourceType: r.resourceType } }),
    output: view,
  },
  ListAccessViews: {
    kind: 'unary',
    input: (r) => ({ query: q({ skip: r.skip, limit: r.limit }) }),
    output: (b) => ({ views: b.views.map(view), count: b.count }),
  },
  ReadAccessView: {
    kind: 'unary',
    input: (r) => ({ params: { name: r.name }, query: q({ skip: r.skip, limit: r.limit }) }),
    output: ({ objects, ...v }) => ({ view: view(v), objects }),
  },
  RefreshAccessView: { kind: 'unary', input: (r) => ({ params: { name: r.name } }), output: view },
  DeleteAccessView: { kind: 'unary', input: (r) => ({ params: { name: r.name } }), output: (b) => b },
  Watch: { kind: 'watch', after: (r) => Number(r.afterRevision ?? 0) },
};

/** A change of the feed as the Watch stream sends it. */
export const grpcChange = (c: Msg) => ({
  revision: c.revision,
  kind: c.kind,
  op: c.op,
  tuple: c.tuple ?? '',
  at: iso(c.at),
  definition: c.definition
    ? { name: c.definition.name, relations: toNames(c.definition.relations), permissions: toNames(c.definition.permissions), version: c.definition.version ?? 0 } : null,
});
