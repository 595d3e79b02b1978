// Redis connections for BullMQ (the send queue): its own, with maxRetriesPerRequest: null as BullMQ requires.
import { Redis } from 'ioredis';
import type { QueueConnection } from '../ports/communications.js';

/**
 * `offline: false` (the producer's): a call made while Redis is down fails at once instead of waiting in ioredis' queue,
 * so a send answers 503 and the caller retries with its idempotency key. The worker's waits and reconnects by itself.
 */
export function bullmqConnection(url: string, opts: { offlineQueue: boolean }): QueueConnection {
  const client = new Redis(url, { maxRetriesPerRequest: null, enableOfflineQueue: opts.offlineQueue });
  client.on('error', () => undefined); // the queue's own error events report outages, once each
  return {
    client: client as never,
    close() { client.disconnect(); },
  };
}
