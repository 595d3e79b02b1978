// Redis connections for BullMQ (the job queue): the producer's and the worker's, each its own.
import { Redis, type RedisOptions } from 'ioredis';

/** A Redis connection BullMQ is given (`client` is the driver's, handed to BullMQ as is: its own ioredis type). */
export interface QueueConnection {
  client: never;
  ping(): Promise<unknown>;
  close(): void;
  /** Connected to Redis now (not connecting, nor reconnecting). */
  ready(): boolean;
}

/**
 * As BullMQ advises, a Queue (the producer) fails fast and a Worker waits:
 * - `producer`: no offline queue, and a command in flight when the connection drops is failed at once
 *   (`maxRetriesPerRequest: 0`), never sent again after Redis returns, so a send answers 503 while Redis is down and the
 *   caller retries with its idempotency key;
 * - `worker`: `maxRetriesPerRequest: null`, as BullMQ requires of a Worker; its commands wait and it reconnects by itself.
 */
export function bullmqConnection(url: string, role: 'producer' | 'worker'): QueueConnection {
  const options: RedisOptions = role === 'producer'
    ? { maxRetriesPerRequest: 0, enableOfflineQueue: false, autoResendUnfulfilledCommands: false }
    : { maxRetriesPerRequest: null, enableOfflineQueue: true };
  const client = new Redis(url, options);
  client.on('error', () => undefined); // the queue's own error events report outages, once each
  return {
    client: client as never,
    ping: () => client.ping(),
    ready: () => client.status === 'ready',
    close() {
      client.disconnect();
    },
  };
}
