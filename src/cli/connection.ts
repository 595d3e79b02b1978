// The server a command talks to: URL and token from flags, the environment or a profile; requests with errors as exit codes.
import type { Readable } from 'node:stream';
import { int, str, type Values } from './args.js';
import { CliError, EXIT, usage } from './exit.js';
import type { CliIo, Env, Sink } from './io.js';
import { profileName, profilePath, readProfile } from './profile.js';
import { upload } from './upload.js';

export interface Connection {
  url: string;
  /** JSON request; resolves to the parsed body of a 2xx answer, throws a CliError otherwise. */
  json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** Any request; the answer is checked for a 2xx status and returned unread. */
  /**
   * Any request; the answer is checked for a 2xx status and returned unread. The timeout covers the whole answer,
   * or with `stream` only until its headers arrive (an export may rightly take longer). An `upload` (sent through
   * node:http) has no time limit: an import is answered once the server has read and applied all of it.
   */
  raw(method: string, path: string, init?: { body?: BodyInit; headers?: Record<string, string>; stream?: boolean; upload?: Readable }): Promise<Response>;
}

/** The largest answer read whole (streams are not): the CLI never holds an unbounded answer in memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export const query = (params: Record<string, string | number | boolean | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

/** The answer read whole, within the timeout and MAX_BODY_BYTES, so a stalled or endless body cannot hang or fill memory. */
async function settled(res: Response, timer: NodeJS.Timeout | undefined, signal: AbortSignal): Promise<Response> {
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw new CliError(EXIT.unavailable, `the answer is larger than ${MAX_BODY_BYTES} bytes`);
      chunks.push(chunk);
    }
    return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers: res.headers });
  } catch (e) {
    if (e instanceof CliError) throw e;
    if (signal.reason instanceof CliError) throw signal.reason;
    throw new CliError(EXIT.unavailable, `the answer was cut short: ${(e as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** localhost, 127.0.0.0/8 and ::1: plain http there never leaves the machine. */
const isLoopback = (host: string) => host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]';

const sameServer = (a: string, b: string) => {
  try {
    return new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');
  } catch {
    return false;
  }
};

export async function connect(values: Values, io: Pick<CliIo, 'env' | 'stderr'>): Promise<Connection> {
  const env: Env = io.env;
  const needProfile = (str(values, 'url') ?? env.AUTHZ_URL) === undefined || (str(values, 'token') ?? env.AUTHZ_TOKEN) === undefined;
  const profile = needProfile ? await readProfile(profileName(str(values, 'profile'), env), profilePath(env), io.stderr) : undefined;
  const url = str(values, 'url') ?? env.AUTHZ_URL ?? profile?.url;
  // A profile's token goes only to the server it was saved for, never to another --url.
  const profileToken = profile && url !== undefined && sameServer(url, profile.url) ? profile.token : undefined;
  const token = str(values, 'token') ?? env.AUTHZ_TOKEN ?? profileToken;
  if (!url) throw usage('no server: pass --url, set AUTHZ_URL, or run authz login');
  if (!token) {
    const other = profile && profileToken === undefined ? ` (the profile's token is for ${profile.url} only)` : '';
    throw new CliError(EXIT.auth, `no API token for ${url}${other}: pass --token, set AUTHZ_TOKEN, or run authz login`);
  }
  const timeoutMs = int(values, 'timeout', { min: 1, max: 86_400, fallback: 30 }) * 1000;
  return connection(url, token, timeoutMs, io.stderr);
}

/** `stderr` takes the warning about a token sent over plain http. */
export function connection(rawUrl: string, token: string, timeoutMs: number, stderr: Sink): Connection {
  let base: URL;
  try {
    base = new URL(rawUrl);
  } catch {
    throw usage(`--url ${JSON.stringify(rawUrl)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw usage(`--url must be http:// or https://, got ${base.protocol}`);
  // Credentials in the URL would be printed with it in every message; the token is the credential.
  if (base.username || base.password) throw usage('the server URL must not hold a user name or password: give the API token with --token, AUTHZ_TOKEN or authz login');
  const url = base.href.replace(/\/+$/, '');
  if (base.protocol === 'http:' && !isLoopback(base.hostname)) {
    stderr.write(`authz: warning: ${url} is plain http: the token crosses the network unencrypted; use https://\n`);
  }

  const raw: Connection['raw'] = async (method, path, init = {}) => {
    let res: Response;
    const abort = new AbortController();
    const timer = init.upload ? undefined
      : setTimeout(() => abort.abort(new CliError(EXIT.unavailable, `${method} ${path.split('?')[0]}: no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    const headers = { authorization: `Bearer ${token}`, ...(init.headers ?? {}) };
    try {
      res = init.upload ? await upload(url + path, { method, headers, body: init.upload, connectMs: timeoutMs }) : await fetch(url + path, {
        method,
        body: init.body,
        headers,
        // A redirect is not followed: it could send the request (and, to the same origin, the token) somewhere
        // else, and a 301/302 would turn a write into a GET that "succeeds".
        redirect: 'manual',
        signal: abort.signal,
      } as RequestInit);
    } catch (e) {
      clearTimeout(timer);
      if (e instanceof CliError) throw e;
      if (abort.signal.reason instanceof CliError) throw abort.signal.reason;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause ?? (e as { code?: string; message?: string });
      throw new CliError(EXIT.unavailable, `cannot reach ${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    if (init.stream) clearTimeout(timer);
    else if (!init.upload) res = await settled(res, timer, abort.signal);
    if (res.ok) return res;
    if (res.status >= 300 && res.status < 400) {
      const to = res.headers.get('location');
      throw usage(
        `${method} ${path.split('?')[0]}: the server answers ${res.status}, a redirect${
          to ? ` to ${to.slice(0, 200)}` : ''
        }; authz does not follow redirects: give the server's own URL (--url, AUTHZ_URL or authz login)`,
      );
    }
    const text = await res.text().catch(() => '');
    let body: { code?: string; message?: string; details?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    const what = `${method} ${path.split('?')[0]}: ${res.status}${body.code ? ` ${body.code}` : ''}: ${body.message ?? (text.slice(0, 200) || res.statusText)}`;
    const exit = res.status === 401 || res.status === 403 ? EXIT.auth : res.status >= 500 ? EXIT.unavailable : EXIT.refused;
    throw new CliError(exit, what, body.details);
  };

  return {
    url,
    raw,
    async json<T>(method: string, path: string, body?: unknown) {
      const res = await raw(method, path, body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const text = await res.text();
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new CliError(EXIT.unavailable, `${path}: the answer is not JSON: ${text.slice(0, 200)}`);
      }
    },
  };
}
