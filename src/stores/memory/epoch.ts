// The epoch in memory: a value on the shared hub that writers change after a change (as src/stores/redis/epoch.ts).
import { randomUUID } from 'node:crypto';
import type { Epoch } from '../ports/epoch.js';
import type { MemoryHub } from './hub.js';

export function memoryEpoch(hub: MemoryHub, key: string): Epoch {
  return {
    async read() {
      return hub.get(key) ?? '0';
    },
    async bump() {
      hub.set(key, randomUUID());
    },
  };
}
