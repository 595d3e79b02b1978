// The admin GraphQL schema, generated from the route registry: GET routes are queries, the others mutations.
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap } from 'graphql';
import { flatArgs, splitArgs } from '../flat-args.js';
import { collected, invoke, type InvokeDeps } from '../invoke.js';
import { toolName, type Route } from '../registry.js';
import { JSONScalar } from './json-scalar.js';

export interface GraphQLContext { headers: Record<string, string | undefined> }

/** Field names are the MCP tool names (`get_authorization_permissions_can`); arguments are flat, values JSON. */
export function adminSchema(routes: Route[], deps: InvokeDeps): GraphQLSchema {
  const query: Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> = {};
  const mutation: Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> = {};
  for (const r of routes.filter((x) => x.surface === 'admin')) {
    const flat = flatArgs(r);
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const a of flat.args) args[a.name] = { type: JSONScalar, description: `${a.where}${a.required ? ', required' : ''}` };
    for (const where of Object.keys(flat.whole)) args[where] = { type: JSONScalar, description: `the whole ${where}` };
    const field: GraphQLFieldConfig<unknown, GraphQLContext> = {
      type: JSONScalar,
      description: `${r.method.toUpperCase()} ${r.path}: ${r.summary}`,
      args,
      resolve: async (_src, values: Record<string, unknown>, ctx) => {
        const reply = await collected(await invoke(r, splitArgs(r, flat, values, ctx.headers), deps));
        return reply.text ?? reply.body ?? {};
      },
    };
    (r.method === 'get' ? query : mutation)[toolName(r.method, r.path)] = field;
  }
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
  });
}
