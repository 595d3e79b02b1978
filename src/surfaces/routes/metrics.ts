// GET /metrics on the admin surface: Prometheus text format (scrape it with an API token as bearer).
import type { Metrics } from '../../services/metrics.js';
import { text } from './reply-parts.js';
import { route, type Route } from '../registry.js';

export function metricsRoutes(deps: { metrics: Metrics }): Route[] {
  return [route({
    surface: 'admin',
    http: { method: 'get', path: '/metrics', produces: ['text/plain'] },
    output: text,
    group: 'core',
    auth: 'admin',
    mcp: false,
    summary: 'Prometheus metrics: request latency per route, decisions and cache hits, index lag and queue depth',
    handle: async () => ({ text: await deps.metrics.text(), headers: { 'content-type': deps.metrics.registry.contentType } }),
  })];
}
