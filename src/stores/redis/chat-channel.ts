// Chat events on a Redis pub/sub channel under REDIS_PREFIX: one subscriber connection per process.
import type { Redis } from 'ioredis';
import type { ChatChannel } from '../ports/chat-channel.js';

export function redisChatChannel(redis: Redis, prefix: string, onMessage: (message: string) => void): ChatChannel {
  const channel = `${prefix}:chat:events`;
  // A subscribed connection takes no other commands; ioredis subscribes it again after a reconnect.
  const sub = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
  sub.on('message', (from: string, message: string) => {
    if (from === channel) onMessage(message);
  });
  sub.on('error', () => undefined); // the main connection reports outages
  return {
    async publish(message) {
      await redis.publish(channel, message);
    },
    // Not awaited: with Redis down the subscription waits in the offline queue and is made when Redis answers, so the
    // service starts meanwhile (as it does without Redis), and ioredis makes it again after every reconnect.
    async start() {
      sub.subscribe(channel).catch(() => undefined);
    },
    // QUIT, answered once the server has ended the subscription, so nothing arrives after stop (a disconnect closed
    // only our side: a message already on its way was still delivered, seen in test/contract/chat-channel.contract.ts).
    async stop() {
      if (sub.status === 'ready') await sub.quit().catch(() => sub.disconnect());
      else sub.disconnect();
    },
  };
}
