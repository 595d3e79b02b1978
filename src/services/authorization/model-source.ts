// The current Model, built from stored definitions; refreshed on local writes and every few seconds.
import { Model } from '../../engine/model.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { Epoch } from '../../stores/ports/epoch.js';

const REFRESH_MS = 2000;

export class ModelSource {
  private cached: { model: Model; at: number; epoch: string | null } | null = null;
  /** The newest load, and the `told` count when it began to read (or was queued). */
  private loading: { load: Promise<Model>; told: number } | null = null;
  /** How many times another process told of a change: a load begun before the last one may have read before it. */
  private told = 0;
  /** A load queued behind the one in flight, not reading yet. */
  private waiting: Promise<Model> | null = null;
  /** `epoch` changes with every definition change in any process (see `changed`). */
  constructor(private readonly store: DefinitionStore, private readonly epoch: Epoch) {}

  /**
   * The model at most REFRESH_MS old. A caller finding it older joins the load in flight instead of queueing one of its
   * own after it: with MongoDB down, concurrent writers' loads ran one after another, each waiting out the server
   * selection (2 s), and writes answered 503 after up to 6.4 s (store-faults). One begun before another process told of
   * a change is not joined.
   */
  async get(): Promise<Model> {
    const cached = this.cached;
    if (cached && Date.now() - cached.at < REFRESH_MS) return cached.model;
    return this.loading?.told === this.told ? this.loading.load : this.reload();
  }

  /**
   * The cached model if `ok` holds for it, else a freshly loaded one: a definition made through another process
   * in the last seconds is seen before a write is refused or a type is called unknown.
   */
  async unlessStale(ok: (m: Model) => boolean): Promise<Model> {
    const model = await this.get();
    if (ok(model)) return model;
    // Only when a definition changed since the load: asking about types that do not exist costs no store read.
    const now = await this.epoch.read();
    return now !== null && now === this.cached?.epoch ? model : this.reload();
  }

  /** After this process changed a definition: tells the others, and loads. */
  async changed(): Promise<Model> {
    await this.epoch.bump().catch(() => undefined); // the others still reload within REFRESH_MS
    return this.reload();
  }

  /** Another process changed a definition: the next read loads (the bus says so before that change is acknowledged). */
  invalidate(): void {
    this.cached = null;
    this.told++;
  }

  /**
   * Loads now. A load already in flight may have read before the caller's write, so a new one starts after it; one
   * already waiting for it to end reads after this call too, and is shared: each unit of index work reloads, and with
   * MongoDB down their loads queued one behind another, each waiting out the server selection (2 s).
   */
  reload(): Promise<Model> {
    if (this.waiting) return this.waiting;
    const before = this.loading?.load;
    const load: Promise<Model> = (before ?? Promise.resolve()).catch(() => undefined).then(async () => {
      if (this.waiting === load) this.waiting = null; // reading from here on: a later caller needs another load
      const told = (entry.told = this.told);
      const epoch = await this.epoch.read(); // read first: a change after it makes the next comparison differ
      const defs = await this.store.definitions();
      const model = new Model(defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })));
      // Told of a change while reading: the callers that asked before get this model, the cache does not keep it.
      if (this.told === told) this.cached = { model, at: Date.now(), epoch };
      return model;
    });
    const entry = { load, told: this.told };
    this.loading = entry;
    if (before) this.waiting = load;
    void load.finally(() => {
      if (this.loading === entry) this.loading = null;
    }).catch(() => undefined);
    return load;
  }
}
