// Apollo Server's part of the GraphQL endpoint: one started server and its express middleware for a schema. Loaded with
// the first schema build (endpoint.ts), so a process that serves no GraphQL never loads Apollo or graphql-js.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Caller, Pipeline } from '../pipeline.js';
import type { Surface } from '../registry.js';
import { callRequest } from '../http/access-log.js';
import { headersOf } from '../http/wire.js';
import { callerErrorStacks, formatError, toGraphQLError } from './errors.js';
import { documentLimits, type GraphqlLimits } from './limits.js';

/** `rateKey`: what a refused caller's failures count against (the endpoint's). */
export async function apolloHandler(schema: GraphQLSchema, surface: Surface, pipeline: Pipeline, limitsOf: GraphqlLimits, rateKey: string): Promise<RequestHandler> {
  const limits = documentLimits(limitsOf);
  const server = new ApolloServer<Caller>({
    schema,
    parseOptions: limits.parseOptions,
    validationRules: limits.validationRules,
    validationOptions: limits.validationOptions,
    formatError: formatError(surface, pipeline),
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // The service handles its own signals (graceful stop); the landing page would load from a CDN.
    stopOnTerminationSignals: false,
    // Last: the end hooks run in reverse, so the stacks are replaced before any other plugin sees the errors.
    plugins: [ApolloServerPluginLandingPageDisabled(), ...limits.plugins, callerErrorStacks],
  });
  await server.start();
  return expressMiddleware(server, {
    // Credentials are checked once per request; every field then runs as this caller.
    context: async ({ req }): Promise<Caller> => {
      const headers = headersOf(req);
      const caller: Caller = { transport: 'graphql', ip: String(req.ip), headers, bounded: true, request: callRequest(req) };
      try {
        if (surface === 'admin') caller.principal = await pipeline.admin(headers, caller.ip);
        else caller.user = await pipeline.user(headers);
      } catch (e) {
        throw toGraphQLError(pipeline.neutral(e, rateKey));
      }
      return caller;
    },
  });
}
