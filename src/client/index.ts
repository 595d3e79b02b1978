// The typed HTTP SDK (`authz-graph/client`): both surfaces, typed from their OpenAPI documents (openapi-typescript,
// openapi-fetch), carrying consistency tokens from writes to reads, retrying 503s that are safe to retry.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { Surface } from '../surfaces/registry.js';
import { RevisionCarrier } from './consistency.js';
import type { paths as AdminPaths } from './generated/admin-api.js';
import type { paths as ClientPaths } from './generated/client-api.js';
import { FRESH_READS } from './generated/fresh-reads.js';
import { repeatable } from './repeatable.js';
import { retryingFetch, type RetryOptions } from './retry.js';
import { typedCalls, type TypedCalls } from './typed-calls.js';

export { AuthzApiError, type ErrorBody } from './api-error.js';
export type { RetryOptions } from './retry.js';
export type { AdminPaths, ClientPaths };

interface CommonOptions {
  /** The surface's base URL: `http://localhost:3030` (admin) or `http://localhost:3000` (client). */
  baseUrl: string;
  /** 503 retries (see retry.ts for the defaults); `false`: none. */
  retry?: RetryOptions | false;
  /** Headers sent on every call (a call's own headers win). */
  headers?: Record<string, string>;
  /** The fetch to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface AdminClientOptions extends CommonOptions {
  /** An API token (`cdt_...`, recommended) or an admin JWT, sent as a bearer token. */
  apiToken?: string;
  /** The master key, sent in the `masterkey` header. */
  masterkey?: string;
}

export interface AppClientOptions extends CommonOptions {
  /** An access token from a login elsewhere; `login()` sets one. */
  accessToken?: string;
  refreshToken?: string;
}

export interface SurfaceClient<P extends object> extends TypedCalls<P> {
  /** openapi-fetch's client itself (answers `{ data, error, response }`), with the same credentials, retries and tokens. */
  readonly api: Client<P>;
  /** The newest revision a write of this client was answered with; reads that take `consistency` are sent with it. */
  readonly revision: number | undefined;
  /** Reads from now on see at least `revision` (one written by another client, say). */
  observeRevision(revision: number): void;
}

export interface AdminClient extends SurfaceClient<AdminPaths> {
  /** Logs in as an operator (POST /login); the admin JWT is sent from then on. */
  login(username: string, password: string): Promise<void>;
}

type Tokens = { userId: string; accessToken: string; refreshToken: string };

export interface AppClient extends SurfaceClient<ClientPaths> {
  readonly accessToken: string | undefined;
  /** Registers an account (no tokens: log in next). */
  register(email: string, password: string): Promise<{ user: { _id: string; email: string } }>;
  /** Logs in; the access token is sent from then on and the refresh token kept for `renew()`. */
  login(email: string, password: string): Promise<Tokens>;
  /** Rotates the refresh token for a new pair (the old refresh token dies). */
  renew(): Promise<Tokens>;
  /** Ends the session: the access token stops working at once. */
  logout(): Promise<void>;
}

function surfaceClient<P extends object>(surface: Surface, o: CommonOptions, credentials: () => Record<string, string>): SurfaceClient<P> {
  const base = o.fetch ?? ((r: Request) => fetch(r));
  const basePath = new URL(o.baseUrl).pathname.replace(/\/+$/, '');
  const api = createClient<P>({
    baseUrl: o.baseUrl,
    headers: o.headers,
    // Redirects are answered as they are (an AuthzApiError HTTP_3xx), not followed: fetch drops Authorization on a
    // redirect to another origin but sends every other header there, the masterkey included.
    redirect: 'manual',
    fetch: o.retry === false ? base : retryingFetch(o.retry ?? {}, repeatable(surface, basePath), base),
  });
  const auth: Middleware = {
    onRequest: ({ request }) => {
      // Credentials a call sends itself are kept.
      if (request.headers.has('authorization') || request.headers.has('masterkey')) return undefined;
      for (const [k, v] of Object.entries(credentials())) request.headers.set(k, v);
      return undefined;
    },
  };
  const revisions = new RevisionCarrier(FRESH_READS[surface]);
  api.use(auth, revisions.middleware);
  return {
    ...typedCalls(api),
    api,
    get revision() {
      return revisions.revision;
    },
    observeRevision: (r) => revisions.observe(r),
  };
}

/** A client of the admin surface (:3030), with an API token, an admin JWT or the master key. */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  let bearer = options.apiToken;
  const c = surfaceClient<AdminPaths>('admin', options, () => ({
    ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    ...(options.masterkey ? { masterkey: options.masterkey } : {}),
  }));
  return Object.defineProperties(c, Object.getOwnPropertyDescriptors({
    async login(username: string, password: string) {
      bearer = (await c.post('/login', { body: { username, password } })).token;
    },
  })) as AdminClient;
}

/** A client of the client surface (:3000), acting as one user: log in, then every call is that user's. */
export function createAppClient(options: AppClientOptions): AppClient {
  let access = options.accessToken;
  let refresh = options.refreshToken;
  const c = surfaceClient<ClientPaths>('client', options, (): Record<string, string> => (access ? { authorization: `Bearer ${access}` } : {}));
  const keep = (t: Tokens) => {
    access = t.accessToken;
    refresh = t.refreshToken;
    return t;
  };
  return Object.defineProperties(c, Object.getOwnPropertyDescriptors({
    get accessToken() {
      return access;
    },
    register: (email: string, password: string) => c.post('/authentication/local/new', { body: { email, password } }),
    login: async (email: string, password: string) => keep(await c.post('/authentication/local', { body: { email, password } })),
    async renew() {
      if (refresh === undefined) throw new Error('renew() needs a refresh token: log in first');
      return keep(await c.post('/authentication/renew', { body: { refreshToken: refresh } }));
    },
    async logout() {
      await c.post('/authentication/logout');
      access = undefined;
      refresh = undefined;
    },
  })) as AppClient;
}
