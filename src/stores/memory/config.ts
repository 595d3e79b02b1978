// In-memory twin of the MongoDB config store: each module's overrides, replaced whole.
import type { ConfigStore } from '../ports/config.js';
import { copy } from './copy.js';

export function memoryConfigStore(): ConfigStore {
  const modules = new Map<string, Record<string, unknown>>();
  return {
    async all() {
      return copy(Object.fromEntries(modules));
    },
    async get(module) {
      return copy(modules.get(module) ?? null);
    },
    async put(module, value) {
      modules.set(module, copy(value));
    },
  };
}
