// Liveness and deep readiness: one timed check per dependency and per required module.
export type CheckStatus = 'pass' | 'fail' | 'warn';
export interface CheckResult { status: CheckStatus; durationMs: number; message?: string }
export interface ReadyReport { status: 'ready' | 'not-ready'; checks: Record<string, CheckResult> }
export type Probe = () => Promise<string | void>;

const TIMEOUT_MS = 3000;

async function timed(probe: Probe): Promise<CheckResult> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS); });
    const message = await Promise.race([probe(), timeout]);
    return { status: 'pass', durationMs: Math.round(performance.now() - start), ...(message ? { message } : {}) };
  } catch (e) {
    return { status: 'fail', durationMs: Math.round(performance.now() - start), message: (e as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export class Health {
  constructor(private readonly probes: Record<string, Probe>, private readonly requiredModules: string[],
    private readonly registeredModules: () => string[]) {}

  live() { return { status: 'alive' as const, message: 'the process is up' }; }

  async ready(): Promise<ReadyReport> {
    const names = Object.keys(this.probes);
    const results = await Promise.all(names.map((n) => timed(this.probes[n]!)));
    const checks: Record<string, CheckResult> = Object.fromEntries(names.map((n, i) => [n, results[i]!]));
    const registered = new Set(this.registeredModules());
    for (const m of this.requiredModules) {
      checks[`module:${m}`] = registered.has(m)
        ? { status: 'pass', durationMs: 0 }
        : { status: 'fail', durationMs: 0, message: `module ${m} is not registered` };
    }
    const ok = Object.values(checks).every((c) => c.status !== 'fail');
    return { status: ok ? 'ready' : 'not-ready', checks };
  }
}
