// Revoked access tokens in memory, on the shared hub, until they would have expired anyway.
import type { TokenDenyList } from '../ports/token-deny-list.js';
import type { MemoryHub } from './hub.js';

export function memoryTokenDenyList(hub: MemoryHub, prefix: string): TokenDenyList {
  const key = (id: string) => `${prefix}:deny:${id}`;
  return {
    async deny(id, until) {
      const ms = until.getTime() - Date.now();
      if (ms > 0) hub.set(key(id), '1', { px: ms });
    },
    async denied(ids) {
      return ids.some((id) => hub.get(key(id)) !== null);
    },
  };
}
