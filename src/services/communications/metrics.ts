// The send queue in /metrics: jobs per state (read from Redis at each scrape) and what this process delivered and failed.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueEventsSink } from './queue.js';

export function queueMetrics(registry: Registry, counts: () => Promise<Record<string, number>>): QueueEventsSink {
  new Gauge({
    name: 'authz_communications_jobs',
    help: 'Send jobs per state: waiting, active, delayed (waiting for a retry), completed (kept), dead_lettered',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      // A scrape while Redis is down keeps the last values rather than failing the whole page.
      const c = await counts().catch(() => null);
      if (c) { for (const [state, n] of Object.entries(c)) this.set({ state }, n); }
    },
  });
  const completed = new Counter({ name: 'authz_communications_sent_total', help: 'Messages delivered by this process', labelNames: ['channel'], registers: [registry] });
  const failed = new Counter({ name: 'authz_communications_failed_attempts_total', help: 'Delivery attempts that failed in this process (each is retried or dead-lettered)',
    labelNames: ['channel'], registers: [registry] });
  const dead = new Counter({ name: 'authz_communications_dead_lettered_total', help: 'Messages that used every attempt in this process', labelNames: ['channel'],
    registers: [registry] });
  return {
    completed: (channel) => completed.inc({ channel }),
    failedAttempt: (channel) => failed.inc({ channel }),
    deadLettered: (channel) => dead.inc({ channel }),
  };
}
