// POST /graphql on an express app through Apollo Server, rebuilt when what its schema is generated from changes.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '../../log.js';
import type { Caller, Pipeline } from '../pipeline.js';
import type { Surface } from '../registry.js';
import { callRequest } from '../http/access-log.js';
import { headersOf, httpFailure } from '../http/wire.js';
import { callerErrorStacks, formatError, toGraphQLError } from './errors.js';
import { documentLimits, type GraphqlLimits } from './limits.js';

export interface EndpointOptions {
  surface: Surface;
  pipeline: Pipeline;
  log: Logger;
  /** What the schema is built from, as a version; null when unknown (then it is rebuilt at most every few seconds). */
  version(): Promise<string | null>;
  build(): Promise<GraphQLSchema>;
  limits: GraphqlLimits;
}

const UNKNOWN_VERSION_MS = 5000;
const RATE_KEY = 'POST /graphql';

export function graphqlEndpoint(o: EndpointOptions): (app: Express) => void {
  const { pipeline } = o;
  let current: { version: string | null; at: number; handler: RequestHandler } | null = null;
  let building: Promise<RequestHandler> | null = null;
  /** A version whose schema failed to build is retried after a while; meanwhile the last good schema serves. */
  let failed: { version: string | null; at: number } | null = null;

  async function rebuild(version: string | null): Promise<RequestHandler> {
    const limits = documentLimits(o.limits);
    const server = new ApolloServer<Caller>({
      schema: await o.build(),
      parseOptions: limits.parseOptions,
      validationRules: limits.validationRules,
      validationOptions: limits.validationOptions,
      formatError: formatError(o.surface, pipeline),
      introspection: true,
      includeStacktraceInErrorResponses: false,
      // The service handles its own signals (graceful stop); the landing page would load from a CDN.
      stopOnTerminationSignals: false,
      // Last: the end hooks run in reverse, so the stacks are replaced before any other plugin sees the errors.
      plugins: [ApolloServerPluginLandingPageDisabled(), ...limits.plugins, callerErrorStacks],
    });
    await server.start();
    const handler = expressMiddleware(server, {
      // Credentials are checked once per request; every field then runs as this caller.
      context: async ({ req }): Promise<Caller> => {
        const headers = headersOf(req);
        const caller: Caller = { transport: 'graphql', ip: String(req.ip), headers, bounded: true, request: callRequest(req) };
        try {
          if (o.surface === 'admin') caller.principal = await pipeline.admin(headers, caller.ip);
          else caller.user = await pipeline.user(headers);
        } catch (e) {
          throw toGraphQLError(pipeline.neutral(e, RATE_KEY));
        }
        return caller;
      },
    });
    // Older servers are simply dropped: they hold no sockets or timers, and requests still on them finish.
    current = { version, at: Date.now(), handler };
    return handler;
  }

  async function handler(): Promise<RequestHandler> {
    const version = await o.version();
    const fresh = current && (version !== null ? current.version === version : Date.now() - current.at < UNKNOWN_VERSION_MS);
    if (fresh) return current!.handler;
    if (current && failed && failed.version === version && Date.now() - failed.at < UNKNOWN_VERSION_MS) return current.handler;
    building ??= rebuild(version).then((h) => {
      failed = null;
      return h;
    }, (e: unknown) => {
      o.log.error({ err: e }, 'GraphQL schema could not be built; the last good one serves');
      failed = { version, at: Date.now() };
      if (current) return current.handler;
      throw e;
    }).finally(() => {
      building = null;
    });
    return building;
  }

  const { send } = httpFailure(o.surface, pipeline.neutral);
  return (app) => {
    app.post('/graphql', async (req: Request, res: Response, next: NextFunction) => {
      let h: RequestHandler;
      try {
        await pipeline.enter('graphql', o.surface, String(req.ip), RATE_KEY);
        h = await handler();
      } catch (e) {
        return void send(res, e, RATE_KEY);
      }
      return h(req, res, next);
    });
  };
}
