// Consistency tokens: the newest revision this client's writes were answered with (X-Authz-Revision), sent on every
// later read that takes one (consistency=at_least_as_fresh&revision=N), so a read sees the writes before it.
import type { Middleware } from 'openapi-fetch';

export class RevisionCarrier {
  private newest: number | undefined;

  /** `reads`: "GET /path" of each operation that takes `consistency`, and whether in its query or its JSON body. */
  constructor(private readonly reads: Record<string, 'query' | 'body'>) {}

  /** The newest revision seen, or undefined before the first write. */
  get revision(): number | undefined {
    return this.newest;
  }

  /** Carries `revision` from now on when it is newer (a revision another client or process wrote, for example). */
  observe(revision: number): void {
    if (Number.isSafeInteger(revision) && revision >= 0 && (this.newest === undefined || revision > this.newest)) this.newest = revision;
  }

  readonly middleware: Middleware = {
    onRequest: async ({ request, schemaPath }) => {
      const where = this.reads[`${request.method} ${schemaPath}`];
      if (where === undefined || this.newest === undefined) return undefined;
      // A caller that says how fresh it wants this read keeps its choice.
      if (where === 'query') {
        const url = new URL(request.url);
        if (url.searchParams.has('consistency') || url.searchParams.has('revision')) return undefined;
        url.searchParams.set('consistency', 'at_least_as_fresh');
        url.searchParams.set('revision', String(this.newest));
        return new Request(url, request);
      }
      const body = await request.clone().json().catch(() => undefined) as Record<string, unknown> | undefined;
      if (typeof body !== 'object' || body === null || Array.isArray(body) || 'consistency' in body || 'revision' in body) return undefined;
      return new Request(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        redirect: request.redirect,
        body: JSON.stringify({ ...body, consistency: 'at_least_as_fresh', revision: this.newest }),
      });
    },
    onResponse: ({ response }) => {
      const header = response.headers.get('x-authz-revision');
      if (response.ok && header !== null && /^\d+$/.test(header)) this.observe(Number(header));
      return undefined;
    },
  };
}
