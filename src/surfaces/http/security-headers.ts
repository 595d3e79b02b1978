// Security headers on every HTTP answer of both surfaces, set before the lean table or Express runs so both carry them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

const base = helmet({
  // Answers are JSON, which runs nothing: allow nothing. The HTML pages (/docs, /playground) set pagePolicy over this one.
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

/**
 * The policy of an HTML page the service serves: its own scripts (and those `scripts` adds), stylesheets and images,
 * requests to its own origin only, no framing. Styles set through the DOM are not governed by style-src, so the pages
 * need no inline styles.
 */
export const pagePolicy = (scripts = '') =>
  [
    "default-src 'none'",
    `script-src 'self'${scripts ? ` ${scripts}` : ''}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
