// The modules' config settings (applied in every process without restart) and what follows them: rate limits, database options.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { Settings } from '../services/config/settings.js';
import { exclusively } from '../services/exclusive.js';
import { effectiveRateLimits, parseRateLimits, RateLimits, readRateLimits } from '../services/rate-limits.js';
import type { Stores } from '../stores/ports/stores.js';
import { configRoutes } from '../surfaces/routes/config.js';
import type { Module } from './module.js';

export async function configModule(stores: Stores, config: Config, log: Logger) {
  const settings = new Settings({
    store: stores.config,
    epoch: stores.epoch('config'),
    log,
    exclusive: exclusively(() => stores.lease('config'), 5000, 'A config change'),
    base: config.ROUTER_RATE_LIMITS ? { router: { rateLimits: readRateLimits(config.ROUTER_RATE_LIMITS) } } : {},
  });
  await settings.start();
  settings.on('database', (options) => stores.tuneDatabase(options));
  const limits = new RateLimits(stores.rateCounter, parseRateLimits(config.ROUTER_RATE_LIMITS), config.ADMIN_AUTH_FAILURES_PER_MINUTE);
  settings.on('router', (router) => limits.update(effectiveRateLimits(router.rateLimits)));
  const module: Module = { name: 'config', routes: configRoutes({ settings }), stop: () => settings.stop() };
  return { module, settings, limits };
}
