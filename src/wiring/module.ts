// A module of the service (a feature a deployment runs: authorization, database, storage, chat, ...) as src/wiring
// builds it: its routes for the registry and what it runs in the background, started and stopped by the root.
import type { Route } from '../surfaces/registry.js';

export interface Module {
  name: string;
  routes: Route[];
  start?(): void | Promise<void>;
  /** Throws while what the module depends on beyond the stores (a storage provider, its queue's Redis) cannot be used: `/ready`'s `module:<name>`. */
  probe?(): Promise<void>;
  /** Called in the reverse order of starting; what is left in the outbox is applied at the next start. */
  stop?(): void | Promise<void>;
}
