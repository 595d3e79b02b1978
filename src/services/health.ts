// Liveness and deep readiness: one timed check per dependency and per required module.
import type { Logger } from '../log.js';
import { within } from './deadline.js';

export type CheckStatus = 'pass' | 'fail' | 'warn';
export interface CheckResult {
  status: CheckStatus;
  durationMs: number;
  message?: string;
}
export interface ReadyReport {
  status: 'ready' | 'not-ready';
  checks: Record<string, CheckResult>;
}
export type Probe = () => Promise<string | void>;

const TIMEOUT_MS = 3000;
/** A report this fresh is answered again: probes (load balancers, gRPC health, many callers at once) cost one round. */
const REUSE_MS = 1000;
/**
 * What /ready says of a store that failed. It is unauthenticated, so a driver's error text (hosts, users, versions)
 * stays in the log.
 */
const DOWN = 'down';

interface Probed {
  result: CheckResult;
  reason?: string;
}

async function timed(probe: Probe): Promise<Probed> {
  const start = performance.now();
  try {
    await within(probe(), TIMEOUT_MS, () => new Error(`no answer within ${TIMEOUT_MS} ms`));
    return { result: { status: 'pass', durationMs: Math.round(performance.now() - start) } };
  } catch (e) {
    return { result: { status: 'fail', durationMs: Math.round(performance.now() - start), message: DOWN }, reason: (e as Error).message };
  }
}

export class Health {
  /** What each module that has one depends on (its storage provider, its queue's Redis), asked when the module is required. */
  private readonly moduleProbes = new Map<string, Probe>();
  private last: { at: number; report: ReadyReport } | null = null;
  private running: Promise<ReadyReport> | null = null;
  /** The reason each failing check last failed with, so the log says when it changes, not on every probe. */
  private readonly failing = new Map<string, string>();

  constructor(private readonly probes: Record<string, Probe>, private readonly requiredModules: string[], private readonly registeredModules: () => string[],
    private readonly log?: Logger) {}

  live() {
    return { status: 'alive' as const, message: 'the process is up' };
  }

  /** `module:<name>` passes only while `probe` does, when the module is one of READY_REQUIRED_MODULES. */
  probeModule(name: string, probe: Probe): void {
    this.moduleProbes.set(name, probe);
  }

  /** The latest report: shared by callers that ask while one runs, and reused for REUSE_MS. */
  ready(): Promise<ReadyReport> {
    if (this.last && performance.now() - this.last.at < REUSE_MS) return Promise.resolve(this.last.report);
    this.running ??= this.probe().then((report) => {
      this.last = { at: performance.now(), report };
      return report;
    }).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async probe(): Promise<ReadyReport> {
    const registered = new Set(this.registeredModules());
    const probed = this.requiredModules.filter((m) => registered.has(m) && this.moduleProbes.has(m));
    const names = [...Object.keys(this.probes), ...probed.map((m) => `module:${m}`)];
    const probes = [...Object.values(this.probes), ...probed.map((m) => this.moduleProbes.get(m)!)];
    const results = await Promise.all(probes.map((p) => timed(p)));
    names.forEach((n, i) => this.note(n, results[i]!.reason));
    const checks: Record<string, CheckResult> = Object.fromEntries(names.map((n, i) => [n, results[i]!.result]));
    for (const m of this.requiredModules) {
      if (!registered.has(m)) checks[`module:${m}`] = { status: 'fail', durationMs: 0, message: `module ${m} is not registered` };
      else checks[`module:${m}`] ??= { status: 'pass', durationMs: 0 };
    }
    const ok = Object.values(checks).every((c) => c.status !== 'fail');
    return { status: ok ? 'ready' : 'not-ready', checks };
  }

  /** Logs a check that starts failing (with why), fails for another reason, or recovers. */
  private note(check: string, reason: string | undefined): void {
    const before = this.failing.get(check);
    if (reason === before) return;
    if (reason === undefined) {
      this.failing.delete(check);
      this.log?.info({ check }, 'readiness check passes again');
    } else {
      this.failing.set(check, reason);
      this.log?.warn({ check, reason }, 'readiness check fails');
    }
  }
}
