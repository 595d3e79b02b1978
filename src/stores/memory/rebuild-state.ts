// In-memory twin of the MongoDB rebuild state: the pending request and the running rebuild, replaced whole.
import type { RebuildState, RebuildStateStore } from '../ports/rebuild-state.js';
import { copy } from './copy.js';

export function memoryRebuildState(): RebuildStateStore {
  let state: RebuildState = { requested: null, running: null };
  return {
    async get() {
      return copy(state);
    },
    async put(next) {
      state = { requested: copy(next.requested), running: copy(next.running) };
    },
  };
}
