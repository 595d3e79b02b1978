// The admin GraphQL schema, generated from the route registry: GET routes are queries, the others mutations.
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { flatArgs, splitArgs } from '../flat-args.js';
import { collected, type Caller, type Pipeline } from '../pipeline.js';
import { label, type Route } from '../registry.js';
import { JSONScalar } from './json-scalar.js';

/** The admin routes GraphQL serves: every one, as a field named by the route's id. */
export const adminGraphqlRoutes = (routes: readonly Route[]) => routes.filter((r) => r.surface === 'admin');

/** Field names are the route ids (`get_authorization_permissions_can`); arguments are flat, values JSON. */
export function adminSchema(pipeline: Pipeline): GraphQLSchema {
  const query: Record<string, GraphQLFieldConfig<unknown, Caller>> = {};
  const mutation: Record<string, GraphQLFieldConfig<unknown, Caller>> = {};
  for (const r of adminGraphqlRoutes(pipeline.registry.all())) {
    const flat = flatArgs(r);
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const a of flat.args) args[a.name] = { type: JSONScalar, description: `${a.where}${a.required ? ', required' : ''}` };
    for (const where of Object.keys(flat.whole)) args[where] = { type: JSONScalar, description: `the whole ${where}` };
    const field: GraphQLFieldConfig<unknown, Caller> = {
      type: JSONScalar,
      description: `${label(r)}: ${r.summary}`,
      args,
      resolve: async (_src, values: Record<string, unknown>, caller) => {
        const reply = await collected(await pipeline.invoke(r, splitArgs(r, flat, values), caller));
        return reply.text ?? reply.body ?? {};
      },
    };
    (r.http.method === 'get' ? query : mutation)[r.id] = field;
  }
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
  });
}
