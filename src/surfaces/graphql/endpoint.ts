// POST /graphql on an express app through Apollo Server, rebuilt when what its schema is generated from changes.
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { lazyImport } from '../../lazy-import.js';
import type { Logger } from '../../log.js';
import type { Pipeline } from '../pipeline.js';
import type { Surface } from '../registry.js';
import { httpFailure } from '../http/wire.js';
import type { GraphqlLimits } from './limits.js';

/**
 * Apollo Server, graphql-js, the armor and the schema builders load with the first schema build, on the first POST
 * /graphql: they cost each start about 0.65 s of CPU in a jest worker (0.3 s in plain Node), in every process that
 * never serves GraphQL. One import for both surfaces (runtime.ts says why).
 */
const loadRuntime = lazyImport(() => import('./runtime.js'));

/** What a schema is built with: the loaded GraphQL modules. */
export type GraphqlRuntime = Awaited<ReturnType<typeof loadRuntime>>;

export interface EndpointOptions {
  surface: Surface;
  pipeline: Pipeline;
  log: Logger;
  /** What the schema is built from, as a version; null when unknown (then it is rebuilt at most every few seconds). */
  version(): Promise<string | null>;
  build(runtime: GraphqlRuntime): Promise<GraphQLSchema>;
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
    const runtime = await loadRuntime();
    const handler = await runtime.apolloHandler(await o.build(runtime), o.surface, pipeline, o.limits, RATE_KEY);
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
