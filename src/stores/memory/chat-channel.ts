// Chat events in memory: a channel on the shared hub that every started process hears, the sender included.
import type { ChatChannel } from '../ports/chat-channel.js';
import type { MemoryHub } from './hub.js';

export function memoryChatChannel(hub: MemoryHub, prefix: string, onMessage: (message: string) => void): ChatChannel {
  const channel = `${prefix}:chat:events`;
  let unsubscribe: (() => void) | null = null;
  return {
    async publish(message) {
      hub.publish(channel, message);
    },
    async start() {
      unsubscribe ??= hub.subscribe(channel, onMessage);
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = null;
    },
  };
}
