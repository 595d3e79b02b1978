// Which requests the SDK may send again after a 503: those whose repetition changes nothing more than the first did.
import type { Surface } from '../surfaces/registry.js';

/**
 * POSTs the service documents as safe to repeat: tuple and grant writes are idempotent per tuple (a repeat answers
 * `existing` or 200), a view is created or redefined to the same thing, an import upserts, and two are reads.
 */
const REPEATABLE_POSTS: Record<Surface, string[]> = {
  admin: [
    '/authorization/relations',
    '/authorization/relations/many',
    '/authorization/relations/write',
    '/authorization/permissions/grant',
    '/authorization/permissions/bulk',
    '/authorization/views',
    '/authorization/views/{name}/refresh',
    '/state/import',
  ],
  client: ['/authorization/decisions'],
};
/**
 * POSTs queued once per `idempotencyKey` in their body. Only these: elsewhere a field of that name is the caller's
 * data (a document's own field, say), and repeating a create that carries it would create twice.
 */
const KEYED_POSTS: Record<Surface, string[]> = {
  admin: ['/communications/email', '/communications/push', '/communications/sms'],
  client: [],
};
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const pattern = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** The test for one client: `basePath` is the path of its base URL (empty for `http://host:3030`). */
export function repeatable(surface: Surface, basePath: string): (request: Request) => Promise<boolean> {
  const posts = REPEATABLE_POSTS[surface].map(pattern);
  const keyed = KEYED_POSTS[surface].map(pattern);
  return async (request) => {
    if (IDEMPOTENT_METHODS.has(request.method)) return true;
    if (request.method !== 'POST') return false;
    const path = new URL(request.url).pathname.slice(basePath.length);
    if (posts.some((p) => p.test(path))) return true;
    // A send with an idempotency key is queued once, however often it is repeated (the communications routes).
    if (!keyed.some((p) => p.test(path)) || !(request.headers.get('content-type') ?? '').includes('json')) return false;
    const body = await request.json().catch(() => undefined) as { idempotencyKey?: unknown } | undefined;
    return typeof body?.idempotencyKey === 'string';
  };
}
