// Chat events on a Redis pub/sub channel under REDIS_PREFIX: one subscriber connection per process.
import type { Redis } from 'ioredis';
import type { ChatChannel } from '../ports/chat-channel.js';

export function redisChatChannel(redis: Redis, prefix: string, onMessage: (message: string) => void): ChatChannel {
  const channel = `${prefix}:chat:events`;
  // A subscribed connection takes no other commands; ioredis subscribes it again after a reconnect.
  const sub = redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
  sub.on('message', (from: string, message: string) => { if (from === channel) onMessage(message); });
  sub.on('error', () => undefined); // the main connection reports outages
  return {
    async publish(message) { await redis.publish(channel, message); },
    async start() { await sub.subscribe(channel); },
    async stop() { sub.disconnect(); },
  };
}
