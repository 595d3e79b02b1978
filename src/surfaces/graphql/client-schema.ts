// The client GraphQL schema: a field per client route of the registry (as the admin one), and typed fields per database schema.
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import type { FieldType } from '../../engine/schema-fields.js';
import type { SchemaRecord } from '../../stores/ports/schemas.js';
import type { Caller, Pipeline, RawInput } from '../pipeline.js';
import type { Route } from '../registry.js';
import { JSONScalar } from './json-scalar.js';
import { answersBytes, routeFields } from './route-fields.js';

type Field = GraphQLFieldConfig<unknown, Caller>;

const SCALARS: Record<FieldType, GraphQLOutputType & GraphQLInputType> = {
  String: GraphQLString,
  Number: GraphQLFloat,
  Boolean: GraphQLBoolean,
  Date: GraphQLString,
  ObjectId: GraphQLID,
  JSON: JSONScalar,
  Relation: GraphQLID,
};
const FIXED_TYPES = new Set(['Query', 'Mutation', 'JSON', 'DeleteResult', 'AuthorizationDecision', 'CheckReason', 'String', 'Int', 'Float', 'Boolean', 'ID']);
const FIXED_FIELDS = new Set(['authorizationCheck', 'authorizationDecision', 'me']);

const typeNames = (n: string) => [n, `${n}Page`, `${n}Input`, `${n}Filter`];
const fieldNames = (n: string) => [`find${n}`, `findOne${n}`, `create${n}`, `patch${n}`, `delete${n}`];

/**
 * The client routes GraphQL serves, each as a field named by its id (`get_chat_rooms`, `post_chat_rooms`): every one
 * but those answering bytes (file contents, the docs page), which stay REST-only. The schema fields below cannot
 * clash with these names: schema names start with a letter, route ids have an underscore after the method.
 */
export const clientGraphqlRoutes = (routes: readonly Route[]) => routes.filter((r) => r.surface === 'client' && !answersBytes(r));

/** Schemas whose generated names would clash with another's (or a fixed name) are left out and reported. */
export function usableSchemas(all: SchemaRecord[]): { usable: SchemaRecord[]; skipped: string[] } {
  const count = new Map<string, number>();
  for (const n of [...FIXED_TYPES, ...FIXED_FIELDS]) count.set(n, 1);
  for (const s of all) for (const n of [...typeNames(s.name), ...fieldNames(s.name)]) count.set(n, (count.get(n) ?? 0) + 1);
  const clash = (s: SchemaRecord) => [...typeNames(s.name), ...fieldNames(s.name)].some((n) => (count.get(n) ?? 0) > 1);
  return { usable: all.filter((s) => !clash(s)), skipped: all.filter(clash).map((s) => s.name) };
}

/** The client routes the typed fields (kept for the apps using them) and each schema's fields run. */
export const CLIENT_GRAPHQL_ROUTES = {
  check: 'get_authorization_check',
  me: 'get_authentication_user',
  find: 'get_database_schema',
  findOne: 'get_database_schema_id',
  create: 'post_database_schema',
  patch: 'patch_database_schema_id',
  remove: 'delete_database_schema_id',
} as const;

const reasonType = new GraphQLObjectType({
  name: 'CheckReason',
  description: 'Why a deny names a type or action the model does not have (a typo, or a name a migration removed)',
  fields: { code: { type: new GraphQLNonNull(GraphQLString), description: 'UNKNOWN_TYPE or UNKNOWN_PERMISSION' }, message: { type: new GraphQLNonNull(GraphQLString) },
    didYouMean: { type: GraphQLString } },
});
const decisionType = new GraphQLObjectType({
  name: 'AuthorizationDecision',
  fields: { allowed: { type: new GraphQLNonNull(GraphQLBoolean) }, reason: { type: reasonType } },
});

/**
 * Every field runs the route it mirrors through the pipeline (same validation, authorization and rate limit: an
 * alias costs what the REST call costs); the caller is the token's user.
 */
export function clientSchema(all: SchemaRecord[], pipeline: Pipeline): GraphQLSchema {
  const ids = CLIENT_GRAPHQL_ROUTES;
  const run = async (id: string, caller: Caller, raw: RawInput) => (await pipeline.call('client', id, raw, caller)).body;
  const deleteResult = new GraphQLObjectType({
    name: 'DeleteResult',
    fields: { deleted: { type: JSONScalar, description: 'the deleted document' }, tuples: { type: new GraphQLNonNull(GraphQLInt), description: 'tuples deleted with it' } },
  });
  const derived = routeFields(pipeline, clientGraphqlRoutes(pipeline.registry.all()));
  const checkArgs = {
    action: { type: new GraphQLNonNull(GraphQLString) },
    resource: { type: new GraphQLNonNull(GraphQLString) },
    scope: { type: GraphQLString },
    consistency: { type: GraphQLString, description: 'minimize_latency (default), at_least_as_fresh (with revision) or fully_consistent' },
    revision: { type: GraphQLInt, description: 'with at_least_as_fresh: see every write up to this revision (waits at most FRESHNESS_WAIT_MS, 5 s by default, else INDEX_BEHIND)' },
  };
  const query: Record<string, Field> = {
    ...derived.query,
    authorizationCheck: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'Whether you (or a scope you act for) may do an action on a resource',
      args: checkArgs,
      resolve: async (_s, args: Record<string, unknown>, caller) => ((await run(ids.check, caller, { query: textual(args) })) as { allowed: boolean }).allowed,
    },
    authorizationDecision: {
      type: new GraphQLNonNull(decisionType),
      description: 'authorizationCheck with the reason a deny names a type or action the model lacks',
      args: checkArgs,
      resolve: (_s, args: Record<string, unknown>, caller) => run(ids.check, caller, { query: textual(args) }),
    },
    me: { type: JSONScalar, description: 'Your account', resolve: (_s, _a, caller) => run(ids.me, caller, {}) },
  };
  const mutation: Record<string, Field> = { ...derived.mutation };

  for (const s of usableSchemas(all).usable) addSchemaFields(s, run, deleteResult, query, mutation);
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
  });
}

type Run = (id: string, caller: Caller, raw: RawInput) => Promise<unknown>;

/** One schema's type, its find and findOne queries and its create, patch and delete mutations. */
function addSchemaFields(s: ReturnType<typeof usableSchemas>['usable'][number], run: Run, deleteResult: GraphQLObjectType, query: Record<string, Field>,
  mutation: Record<string, Field>): void {
  const ids = CLIENT_GRAPHQL_ROUTES;
  const fields = Object.entries(s.fields);
  const docType = new GraphQLObjectType({
    name: s.name,
    fields: {
      _id: { type: new GraphQLNonNull(GraphQLID) },
      ...Object.fromEntries(fields.map(([n, f]) => [n, { type: SCALARS[f.type] }])),
      createdAt: { type: GraphQLString },
      updatedAt: { type: GraphQLString },
    },
  });
  // GraphQL has no empty input types: a schema without fields is created without input and cannot be patched.
  const input = fields.length
    ? new GraphQLInputObjectType({ name: `${s.name}Input`, fields: Object.fromEntries(fields.map(([n, f]) => [n, { type: SCALARS[f.type] }])) })
    : null;
  const filterable = fields.filter(([, f]) => f.type !== 'JSON');
  const filter = filterable.length
    ? new GraphQLInputObjectType({ name: `${s.name}Filter`, fields: Object.fromEntries(filterable.map(([n]) => [n, { type: GraphQLString }])) })
    : null;
  const page = new GraphQLObjectType({
    name: `${s.name}Page`,
    fields: { documents: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(docType))) }, count: { type: new GraphQLNonNull(GraphQLInt) } },
  });
  query[`find${s.name}`] = {
    type: new GraphQLNonNull(page),
    description: `The ${s.name} documents you (or the scope) can read, paged`,
    args: {
      skip: { type: GraphQLInt },
      limit: { type: GraphQLInt },
      sort: { type: GraphQLString, description: 'a field, "-field" for descending' },
      scope: { type: GraphQLString },
      ...(filter ? { where: { type: filter, description: 'equality filters' } } : {}),
    },
    resolve: (_s, a: Record<string, unknown>, ctx) => {
      const { where, ...rest } = a as { where?: Record<string, unknown> };
      return run(ids.find, ctx, { params: { schema: s.name }, query: textual({ ...rest, ...(where ?? {}) }) });
    },
  };
  query[`findOne${s.name}`] = {
    type: docType,
    description: `One ${s.name} document you can read (null otherwise)`,
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: (_s, a: { id: string }, ctx) => run(ids.findOne, ctx, { params: { schema: s.name, id: a.id } }).catch(nullWhenNotFound),
  };
  mutation[`create${s.name}`] = {
    type: new GraphQLNonNull(docType),
    description: `Create a ${s.name}; you (or the scope team) become its owner`,
    args: { ...(input ? { input: { type: new GraphQLNonNull(input) } } : {}), scope: { type: GraphQLString } },
    resolve: (_s, a: { input?: Record<string, unknown>; scope?: string }, ctx) =>
      run(ids.create, ctx, { params: { schema: s.name }, query: textual({ scope: a.scope }), body: { ...a.input } }),
  };
  if (input) {
    mutation[`patch${s.name}`] = {
      type: new GraphQLNonNull(docType),
      description: `Change fields of a ${s.name} (needs edit)`,
      args: { id: { type: new GraphQLNonNull(GraphQLID) }, input: { type: new GraphQLNonNull(input) } },
      resolve: (_s, a: { id: string; input: Record<string, unknown> }, ctx) => run(ids.patch, ctx, { params: { schema: s.name, id: a.id }, body: { ...a.input } }),
    };
  }
  mutation[`delete${s.name}`] = {
    type: new GraphQLNonNull(deleteResult),
    description: `Delete a ${s.name} and its tuples (needs delete)`,
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: (_s, a: { id: string }, ctx) => run(ids.remove, ctx, { params: { schema: s.name, id: a.id } }),
  };
}

/** Query values as REST receives them: strings, absent when not given. */
const textual = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));

/** A document you may not read is null in GraphQL, as it is a 404 in REST. */
function nullWhenNotFound(e: unknown): null {
  if ((e as { code?: string }).code === 'NOT_FOUND') return null;
  throw e;
}
