// Documentation on each surface: GET /openapi.json (from the registry) and GET /docs (Swagger UI over that document).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import { z } from 'zod';
import { pagePolicy } from '../http/security-headers.js';
import { text } from '../routes/reply-parts.js';
import { route, type Route, type Surface } from '../registry.js';
import { openApiDocument } from './openapi.js';

/** The document's top level (its paths are whatever the registry holds). */
const openapiReply = z.object({ openapi: z.string(), info: z.unknown(), paths: z.record(z.string(), z.unknown()) }).catchall(z.unknown());

const SWAGGER_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The page's one inline script. No validator: its badge would be fetched from validator.swagger.io. */
const INIT = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', validatorUrl: null });";

/** The Swagger UI page for a surface; its assets are served from /docs/assets. */
export const swaggerPage = (surface: Surface) =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>authz-graph ${surface} API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>${INIT}</script></body></html>
`;

/**
 * What the page needs and nothing else (test/integration/docs-page.test.ts renders it in Chromium): its own scripts (the
 * bundle, and the inline script by hash), its stylesheet, its data: icons, and /openapi.json. Nothing from elsewhere;
 * no framing. Swagger UI sets styles through the DOM, which style-src does not govern, so no inline styles are allowed.
 */
export const DOCS_CSP = pagePolicy(`'sha256-${createHash('sha256').update(INIT).digest('base64')}'`);

export function docsRoutes(getRoutes: () => readonly Route[], version: string): Route[] {
  const cache = new Map<Surface, Record<string, unknown>>();
  const doc = (surface: Surface) => {
    if (!cache.has(surface)) cache.set(surface, openApiDocument(surface, getRoutes(), version));
    return cache.get(surface)!;
  };
  return (['admin', 'client'] as const).flatMap((surface) => [
    route({
      surface,
      http: { method: 'get', path: '/openapi.json' },
      output: openapiReply,
      group: 'core',
      auth: 'none',
      mcp: false,
      summary: "This surface's OpenAPI 3.1 document",
      handle: async () => ({ body: doc(surface) }),
    }),
    route({
      surface,
      http: { method: 'get', path: '/docs', produces: ['text/html'] },
      output: text,
      group: 'core',
      auth: 'none',
      mcp: false,
      summary: 'Swagger UI over /openapi.json',
      handle: async () => ({ text: swaggerPage(surface), headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP } }),
    }),
  ]);
}

/** The Swagger UI's own files, for both surfaces. */
export const mountSwaggerAssets = (app: Express) => {
  app.use('/docs/assets', express.static(SWAGGER_DIR, { index: false }));
};
