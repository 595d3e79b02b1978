// POST /graphql on an express app through Apollo Server, rebuilt when what its schema is generated from changes.
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { headersOf, sendError } from '../http/express-adapter.js';
import { asAppError } from '../invoke.js';
import type { Surface } from '../registry.js';
import { formatError, toGraphQLError } from './errors.js';

type Headers = Record<string, string | undefined>;
export interface EndpointContext { headers: Headers; ip: string }
export interface EndpointOptions {
  surface: Surface;
  log: Logger;
  /** What the schema is built from, as a version; null when unknown (then it is rebuilt at most every few seconds). */
  version(): Promise<string | null>;
  build(): Promise<GraphQLSchema>;
  /** Throws an AppError when the request may not use the endpoint at all. */
  authenticate(headers: Headers): Promise<void>;
  /** Runs before anything else (rate limits); throws an AppError to refuse. */
  admit?(req: Request): Promise<void>;
}

const UNKNOWN_VERSION_MS = 5000;

export function graphqlEndpoint(o: EndpointOptions): (app: Express) => void {
  let current: { version: string | null; at: number; handler: RequestHandler } | null = null;
  let building: Promise<RequestHandler> | null = null;
  /** A version whose schema failed to build is retried after a while; meanwhile the last good schema serves. */
  let failed: { version: string | null; at: number } | null = null;

  async function rebuild(version: string | null): Promise<RequestHandler> {
    const server = new ApolloServer<EndpointContext>({
      schema: await o.build(),
      formatError: formatError(o.surface, o.log),
      introspection: true,
      includeStacktraceInErrorResponses: false,
      // The service handles its own signals (graceful stop); the landing page would load from a CDN.
      stopOnTerminationSignals: false,
      plugins: [ApolloServerPluginLandingPageDisabled()],
    });
    await server.start();
    const handler = expressMiddleware(server, {
      context: async ({ req }) => {
        const headers = headersOf(req);
        try {
          await o.authenticate(headers);
        } catch (e) {
          if (e instanceof AppError) throw toGraphQLError(e);
          throw e;
        }
        return { headers, ip: String(req.ip) };
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
    building ??= rebuild(version).then((h) => { failed = null; return h; }, (e: unknown) => {
      o.log.error({ err: e }, 'GraphQL schema could not be built; the last good one serves');
      failed = { version, at: Date.now() };
      if (current) return current.handler;
      throw e;
    }).finally(() => { building = null; });
    return building;
  }

  return (app) => {
    app.post('/graphql', async (req: Request, res: Response, next: NextFunction) => {
      let h: RequestHandler;
      try {
        await o.admit?.(req);
        h = await handler();
      } catch (e) {
        return void sendError(o.surface, res, asAppError(e, o.log, 'POST /graphql'));
      }
      return h(req, res, next);
    });
  };
}
