// Where the page's verdicts are computed: in a worker when the page can start one (served by the service), else on
// the page's thread (browsers refuse workers to pages opened from disk). A newer scenario ends the worker still busy
// with an older one, so a slow scenario costs nothing once it is edited.
import { runScenario, type ScenarioResult } from '../../../engine/scenario-run.js';
import type { Scenario } from '../../../engine/scenario.js';
import type { VerdictReply, VerdictRequest } from './worker.js';

/** The verdicts of a scenario, or null when a newer scenario was given before they were ready. */
export type Verdicts = (sc: Scenario) => Promise<ScenarioResult | null>;

interface Pending {
  id: number;
  scenario: Scenario;
  resolve(r: ScenarioResult | null): void;
  reject(e: unknown): void;
}

/** `url`: the worker's script; null to compute on the page's thread. */
export function verdictRunner(url: string | null): Verdicts {
  let worker: Worker | null = null;
  let usable = url !== null;
  let pending: Pending | null = null;
  let next = 0;

  const here = (p: Pending) => {
    try {
      p.resolve(runScenario(p.scenario));
    } catch (e) {
      p.reject(e);
    }
  };
  const start = () => {
    try {
      worker = new Worker(url!);
    } catch {
      usable = false;
      return;
    }
    worker.onmessage = (e: MessageEvent<VerdictReply>) => {
      if (pending?.id !== e.data.id) return;
      const p = pending;
      pending = null;
      p.resolve(e.data.result);
    };
    // The script did not load or did not run: the page's thread answers from now on.
    worker.onerror = (e) => {
      e.preventDefault();
      usable = false;
      worker?.terminate();
      worker = null;
      const p = pending;
      pending = null;
      if (p) here(p);
    };
  };

  return (scenario) =>
    new Promise((resolve, reject) => {
      if (pending) {
        // Superseded: its worker is ended mid-run rather than left computing verdicts no one will see.
        worker?.terminate();
        worker = null;
        pending.resolve(null);
        pending = null;
      }
      if (usable && !worker) start();
      const p: Pending = { id: ++next, scenario, resolve, reject };
      if (!worker) return here(p);
      pending = p;
      const request: VerdictRequest = { id: p.id, scenario };
      worker.postMessage(request);
    });
}
