// The communications module: push device tokens and notifications, and email, push and sms sent through the job queue.
import type { Logger } from '../log.js';
import { Inbox } from '../services/communications/inbox.js';
import { queueMetrics } from '../services/communications/metrics.js';
import { storeProvider, type Provider } from '../services/communications/provider.js';
import { SendQueue } from '../services/communications/queue.js';
import { smtpProvider } from '../services/communications/smtp.js';
import type { CommunicationsConfig } from '../services/config/communications-config.js';
import type { Settings } from '../services/config/settings.js';
import type { Metrics } from '../services/metrics.js';
import type { Stores } from '../stores/ports/stores.js';
import { communicationsRoutes } from '../surfaces/routes/communications.js';
import type { Module } from './module.js';

export function communicationsModule(stores: Stores, deps: { settings: Settings; metrics: Metrics; log: Logger }) {
  const { settings, log } = deps;
  const current = () => settings.get('communications');
  const fixed: Record<'push' | 'sms', Provider> = { push: storeProvider('push'), sms: storeProvider('sms') };
  let email: { key: string; provider: Provider } | null = null;
  // The email provider follows the config: rebuilt when its settings change, in every process.
  const emailProvider = (value: CommunicationsConfig['email']): Provider => {
    const key = JSON.stringify(value);
    if (email?.key !== key) {
      email?.provider.close?.();
      email = { key, provider: value.provider === 'smtp' ? smtpProvider(value, stores.mailer) : storeProvider('email') };
    }
    return email.provider;
  };
  const c = stores.communications;
  let queue: SendQueue | null = null;
  const events = queueMetrics(deps.metrics.registry, () => queue!.counts());
  queue = new SendQueue({
    jobs: stores.jobQueue,
    stores: c,
    log,
    events,
    config: current,
    provider: (channel) => (channel === 'email' ? emailProvider(current().email) : fixed[channel]),
  });
  const inbox = new Inbox(c, () => current().pushNotifications.maxTokensPerUser);
  const module: Module = {
    name: 'communications',
    probe: () => queue!.probe(),
    routes: communicationsRoutes({ inbox, queue, stores: c, userExists: async (id) => (await stores.users.findById(id)) !== null }),
    async start() {
      await c.ensureIndexes().catch((e: Error) => log.warn({ err: e.message }, 'communications indexes not created yet'));
      queue!.start();
      settings.on('communications', (value) => queue!.tune(value));
    },
    async stop() {
      await queue!.stop();
      email?.provider.close?.();
    },
  };
  return { module, queue };
}
