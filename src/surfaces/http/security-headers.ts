// Security headers on every HTTP answer of both surfaces, set before the lean table or Express runs so both carry them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

const base = helmet({
  // Answers are JSON, which runs nothing: allow nothing. The one HTML page, /docs, sets its own policy over this one.
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  // HSTS is for whoever terminates TLS in front of the service; the service itself speaks plain HTTP.
  strictTransportSecurity: false,
});

/** Sets the headers on `res`; a handler may override them afterwards (static assets their caching, /docs its CSP). */
export function securityHeaders(req: IncomingMessage, res: ServerResponse): void {
  base(req, res, () => undefined);
  // Tokens and secrets ride in many answers (logins, renewals, API tokens, and the same through GraphQL and MCP):
  // no answer is kept by a browser or proxy cache unless its handler says otherwise.
  res.setHeader('Cache-Control', 'no-store');
}
