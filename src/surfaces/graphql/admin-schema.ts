// The admin GraphQL schema, generated from the route registry: GET routes are queries, the others mutations.
import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { Pipeline } from '../pipeline.js';
import type { Route } from '../registry.js';
import { routeFields } from './route-fields.js';

/** The admin routes GraphQL serves: every one, as a field named by the route's id. */
export const adminGraphqlRoutes = (routes: readonly Route[]) => routes.filter((r) => r.surface === 'admin');

/** Field names are the route ids (`get_authorization_permissions_can`); arguments are flat, values JSON. */
export function adminSchema(pipeline: Pipeline): GraphQLSchema {
  const { query, mutation } = routeFields(pipeline, adminGraphqlRoutes(pipeline.registry.all()));
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
  });
}
