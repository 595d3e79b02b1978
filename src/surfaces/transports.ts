// Every listener of the service as a list: the two HTTP surfaces (REST with its fast path, GraphQL, MCP, docs, the admin
// feed socket), the realtime socket and gRPC. Each only translates to and from the pipeline.
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { bytesOf, graphqlLimitsOf, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { VERSION } from '../root.js';
import type { Activity } from '../services/activity.js';
import type { DecisionWatch } from '../services/authorization/decision-watch.js';
import { MODULE_NAMES } from '../services/config/module-configs.js';
import type { Schemas } from '../services/database/schemas.js';
import type { Health } from '../services/health.js';
import type { Metrics } from '../services/metrics.js';
import { usageGuide } from './docs/guide.js';
import { openApiDocument } from './docs/openapi.js';
import { mountSwaggerAssets, swaggerPage } from './docs/routes.js';
import { graphqlEndpoint } from './graphql/endpoint.js';
import { GrpcTransport } from './grpc/server.js';
import { corsPolicy, type CorsGate } from './http/cors-policy.js';
import { createHttpApp, type HttpDeps } from './http/express-adapter.js';
import { leanRoutes } from './http/lean-routes.js';
import { securityHeaders } from './http/security-headers.js';
import { refuseMalformed } from './http/wire.js';
import { mountToolServer } from './mcp/tool-server.js';
import type { Pipeline } from './pipeline.js';
import type { Route, Surface } from './registry.js';
import { adminFeedSocket } from './socket/admin-feed.js';
import type { ChatSockets } from './socket/chat-session.js';
import { RealtimeTransport } from './socket/realtime.js';

/** A listener on `host` (the address it binds): started by `listen`, stopped (connections drained, bounded) by `close`. */
export interface Transport {
  name: string;
  host: string;
  start(): Promise<number>;
  stop(): Promise<void>;
}

export interface TransportDeps {
  config: Config;
  log: Logger;
  pipeline: Pipeline;
  metrics: Metrics;
  health: Health;
  schemas: Schemas;
  watch: DecisionWatch;
  activity: Activity;
  /** Chat rooms on the realtime socket. */
  chat?: ChatSockets;
}

/**
 * One HTTP surface: security headers and the CORS policy on every request, then the lean table answers the checks,
 * Express the rest; `upgrade` takes its WebSockets.
 */
function httpTransport(name: Surface, port: number, host: string, app: Express, http: HttpDeps, cors: CorsGate,
  upgrade?: { upgrade: Parameters<Server['on']>[1]; stop(): void }): Transport {
  let server: Server | null = null;
  return {
    name,
    host,
    start: () =>
      new Promise<number>((resolve, reject) => {
        const lean = leanRoutes(name, http);
        const s = createServer((req, res) => {
          securityHeaders(req, res);
          if (!cors(req, res) && !lean(req, res)) app(req, res);
        });
        s.keepAliveTimeout = http.keepAliveMs;
        s.on('clientError', refuseMalformed(name));
        if (upgrade) s.on('upgrade', upgrade.upgrade);
        s.once('error', reject);
        s.listen(port, host, () => {
          const addr = s.address();
          resolve(typeof addr === 'object' && addr ? addr.port : port);
        });
        server = s;
      }),
    async stop() {
      upgrade?.stop();
      const s = server;
      if (!s) return;
      // Requests in flight finish (bounded); idle keep-alive connections close at once.
      await new Promise<void>((r) => {
        s.close(() => r());
        s.closeIdleConnections();
        setTimeout(() => s.closeAllConnections(), 5000).unref();
      });
    },
  };
}

/** The documents the MCP tool server offers as resources: the usage guide, both OpenAPI documents, the Swagger page. */
function toolServerDocs(routes: () => readonly Route[]) {
  return [{
    uri: 'service://docs/guide',
    name: 'guide',
    mimeType: 'text/markdown',
    description: 'How to authenticate and call the API, and every route',
    read: async () => usageGuide(routes()),
  }, {
    uri: 'service://docs/admin-api',
    name: 'admin-api',
    mimeType: 'application/json',
    description: 'OpenAPI 3.1 document of the admin surface',
    read: async () => JSON.stringify(openApiDocument('admin', routes(), VERSION)),
  }, {
    uri: 'service://docs/client-api',
    name: 'client-api',
    mimeType: 'application/json',
    description: 'OpenAPI 3.1 document of the client surface',
    read: async () => JSON.stringify(openApiDocument('client', routes(), VERSION)),
  }, {
    uri: 'service://docs/admin-api/swagger',
    name: 'admin-api-swagger',
    mimeType: 'text/html',
    description: 'Swagger UI page of the admin surface (served at {admin}/docs)',
    read: async () => swaggerPage('admin'),
  }];
}

export function transports(d: TransportDeps): Transport[] {
  const { config, log, pipeline } = d;
  if (config.HOST) log.warn('HOST is deprecated: set ADMIN_HOST (admin HTTP, gRPC) and CLIENT_HOST (client HTTP, realtime socket)');
  const http: HttpDeps = {
    pipeline,
    log,
    bodyLimit: config.BODY_LIMIT,
    keepAliveMs: config.HTTP_KEEP_ALIVE_MS,
    trustProxy: config.TRUST_PROXY,
    observe: (surface, method, route, status, seconds) => d.metrics.request(surface, method, route, status, seconds),
  };
  const routes = () => pipeline.registry.all();
  const limits = graphqlLimitsOf(config);
  // The schema builders load graphql-js, so they come with the first build (see graphqlEndpoint).
  const adminGraphql = graphqlEndpoint({ surface: 'admin', pipeline, log, limits, version: async () => 'routes', build: async (runtime) => runtime.adminSchema(pipeline) });
  const clientGraphql = graphqlEndpoint({
    surface: 'client',
    pipeline,
    log,
    limits,
    version: () => d.schemas.version(),
    build: async (runtime) => {
      const all = await d.schemas.records();
      const { skipped } = runtime.usableSchemas(all);
      if (skipped.length) log.warn({ schemas: skipped }, 'schemas left out of GraphQL: their generated names clash');
      return runtime.clientSchema(all, pipeline);
    },
  });
  const toolServer = mountToolServer({
    pipeline,
    version: VERSION,
    configModules: MODULE_NAMES,
    docs: toolServerDocs(routes),
  });
  const sockets = { maxBuffered: bytesOf(config.SOCKET_MAX_BUFFER), heartbeatMs: config.SOCKET_HEARTBEAT_MS };
  const maxMessageBytes = bytesOf(config.BODY_LIMIT);
  const grpc = new GrpcTransport({
    pipeline,
    activity: d.activity,
    host: config.ADMIN_HOST,
    port: config.GRPC_PORT,
    maxMessageBytes,
    ready: async () => (await d.health.ready()).status === 'ready',
  });
  const realtime = new RealtimeTransport({
    ...sockets,
    pipeline,
    watch: d.watch,
    host: config.CLIENT_HOST,
    port: config.SOCKET_PORT,
    trustProxy: config.TRUST_PROXY,
    keepAliveMs: config.HTTP_KEEP_ALIVE_MS,
    maxMessageBytes: Math.min(maxMessageBytes, bytesOf(config.SOCKET_MAX_MESSAGE)),
    maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS,
    maxPerUser: config.SOCKET_MAX_PER_USER,
    liveCheckMs: config.SOCKET_LIVE_CHECK_MS,
    chat: d.chat,
  });
  return [
    httpTransport('admin', config.ADMIN_PORT, config.ADMIN_HOST, createHttpApp('admin', http, [adminGraphql, toolServer, mountSwaggerAssets]), http, corsPolicy('admin', []),
      adminFeedSocket({ ...sockets, pipeline, activity: d.activity, trustProxy: config.TRUST_PROXY })),
    httpTransport('client', config.CLIENT_PORT, config.CLIENT_HOST, createHttpApp('client', http, [clientGraphql, mountSwaggerAssets]), http,
      corsPolicy('client', config.CORS_ORIGINS)),
    { name: 'socket', host: config.CLIENT_HOST, start: () => realtime.start(), stop: () => realtime.stop() },
    { name: 'grpc', host: config.ADMIN_HOST, start: () => grpc.start(), stop: () => grpc.stop() },
  ];
}
