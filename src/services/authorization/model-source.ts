// The current Model, built from stored definitions; refreshed on local writes and every few seconds.
import { Model } from '../../engine/model.js';
import type { AuthzStore } from '../../stores/ports.js';

const REFRESH_MS = 2000;

export class ModelSource {
  private cached: { model: Model; at: number } | null = null;
  private loading: Promise<Model> | null = null;
  constructor(private readonly store: AuthzStore) {}

  async get(): Promise<Model> {
    if (this.cached && Date.now() - this.cached.at < REFRESH_MS) return this.cached.model;
    return this.reload();
  }

  /** Loads now. A load already in flight may have read before the caller's write, so a new one starts after it. */
  reload(): Promise<Model> {
    const load = (this.loading ?? Promise.resolve()).catch(() => undefined).then(() => this.store.definitions()).then((defs) => {
      const model = new Model(defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })));
      this.cached = { model, at: Date.now() };
      return model;
    });
    this.loading = load;
    void load.finally(() => { if (this.loading === load) this.loading = null; }).catch(() => undefined);
    return load;
  }
}
