// Config modules at run time: defaults, then environment, then what operators PATCHed (in MongoDB), in every process.
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ConfigStore } from '../../stores/ports/config.js';
import type { Epoch } from '../../stores/ports/epoch.js';
import { MODULE_CONFIGS, MODULE_NAMES, isModule, masked, mergePatch, unmasked, type ModuleConfig, type ModuleName } from './module-configs.js';

type Json = Record<string, unknown>;
type Listener = (value: unknown) => void;
/** How often a process looks for changes made through another one (a PATCH applies at once where it is made). */
const POLL_MS = 2000;
/** A reload even without a new epoch, in case a bump was lost while Redis was down. */
const RELOAD_MS = 60_000;

export class Settings {
  private stored: Partial<Record<ModuleName, Json>> = {};
  private readonly effective = new Map<ModuleName, unknown>();
  private readonly listeners = new Map<ModuleName, Listener[]>();
  private seen: string | null = null;
  private loadedAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: {
    store: ConfigStore;
    epoch: Epoch;
    base: Partial<Record<ModuleName, Json>>;
    log: Logger;
    /** Runs `fn` alone among every process (PATCHes of one module read, merge and write). */
    exclusive<T>(fn: () => Promise<T>): Promise<T>;
  }) {
    for (const m of MODULE_NAMES) this.effective.set(m, this.compute(m, {}));
  }

  private compute(m: ModuleName, stored: Json) {
    return MODULE_CONFIGS[m].parse(mergePatch(this.deps.base[m] ?? {}, stored));
  }

  private apply(m: ModuleName, value: unknown) {
    this.effective.set(m, value);
    for (const l of this.listeners.get(m) ?? []) l(value);
  }

  /** Reads every module's overrides; a module whose stored value no longer validates keeps its defaults (and says so). */
  async load(): Promise<void> {
    const epoch = await this.deps.epoch.read();
    const all = await this.deps.store.all();
    for (const m of MODULE_NAMES) {
      const stored = all[m] ?? {};
      if (JSON.stringify(stored) === JSON.stringify(this.stored[m] ?? {})) continue;
      try {
        this.apply(m, this.compute(m, stored));
        this.stored[m] = stored;
      } catch (e) {
        this.deps.log.warn({ module: m, err: (e as Error).message }, 'stored config does not validate; using the defaults');
      }
    }
    this.seen = epoch;
    this.loadedAt = Date.now();
  }

  /** Loads now (the defaults stay if MongoDB is not there yet) and follows changes made by other processes. */
  async start(): Promise<void> {
    await this.load().catch((e: Error) => this.deps.log.warn({ err: e.message }, 'config not loaded yet; using the defaults'));
    this.timer = setInterval(() => {
      void (async () => {
        const epoch = await this.deps.epoch.read();
        const stale = Date.now() - this.loadedAt > RELOAD_MS;
        if (!stale && (epoch === null || (epoch === this.seen && this.seen !== null))) return;
        await this.load();
      })().catch(() => undefined);
    }, POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  get<M extends ModuleName>(m: M): ModuleConfig<M> {
    return this.effective.get(m) as ModuleConfig<M>;
  }

  /** Reloads when another process changed something since the last load, so reads through the API are never behind. */
  private async fresh(): Promise<void> {
    const epoch = await this.deps.epoch.read();
    if (epoch === null || epoch !== this.seen) await this.load();
  }

  async all(): Promise<Record<string, unknown>> {
    await this.fresh();
    return Object.fromEntries(MODULE_NAMES.map((m) => [m, masked(m, this.effective.get(m))]));
  }

  async one(name: string): Promise<unknown> {
    if (!isModule(name)) throw new AppError('NOT_FOUND', `No config module ${name}; modules: ${MODULE_NAMES.join(', ')}`);
    await this.fresh();
    return masked(name, this.effective.get(name));
  }

  /** Calls `listener` with the module's value now and after every change. */
  on<M extends ModuleName>(m: M, listener: (value: ModuleConfig<M>) => void): void {
    this.listeners.set(m, [...(this.listeners.get(m) ?? []), listener as Listener]);
    listener(this.get(m));
  }

  /** Merges `patch` into the module's overrides; an invalid result is refused whole and nothing changes. */
  async patch(name: string, patch: Json): Promise<unknown> {
    if (!isModule(name)) throw new AppError('NOT_FOUND', `No config module ${name}; modules: ${MODULE_NAMES.join(', ')}`);
    return this.deps.exclusive(() => this.merge(name, patch));
  }

  /** What operators set, per module (the defaults and environment are not included): what a state export carries. */
  async overrides(): Promise<Partial<Record<ModuleName, Json>>> {
    const all = await this.deps.store.all();
    return Object.fromEntries(MODULE_NAMES.filter((m) => all[m] && Object.keys(all[m]!).length).map((m) => [m, all[m]!]));
  }

  /** Refuses overrides that would not validate for the module; `at` prefixes the detail paths. */
  check(name: string, overrides: Json, at = 'body'): asserts name is ModuleName {
    if (!isModule(name)) throw new AppError('VALIDATION_FAILED', `No config module ${name}; modules: ${MODULE_NAMES.join(', ')}`, [{ path: at }]);
    const parsed = MODULE_CONFIGS[name].safeParse(mergePatch(this.deps.base[name] ?? {}, overrides));
    if (!parsed.success) {
      throw new AppError('VALIDATION_FAILED', `Invalid ${name} config`, parsed.error.issues.map((i) => ({ path: [at, ...i.path.map(String)].join('.'), message: i.message })));
    }
  }

  /** Sets the module's overrides to exactly `overrides` (state import), validated first. */
  async replace(name: string, overrides: Json): Promise<void> {
    this.check(name, overrides);
    await this.deps.exclusive(async () => {
      await this.deps.store.put(name, overrides);
      await this.deps.epoch.bump().catch(() => undefined);
      await this.load();
    });
  }

  private async merge(name: ModuleName, patch: Json): Promise<unknown> {
    const stored = (await this.deps.store.get(name)) ?? {};
    const next = mergePatch(stored, unmasked(name, patch, stored));
    this.check(name, next);
    await this.deps.store.put(name, next);
    await this.deps.epoch.bump().catch(() => undefined); // other processes also reload when Redis is back
    await this.load(); // also takes in what other processes changed
    return masked(name, this.effective.get(name));
  }
}
