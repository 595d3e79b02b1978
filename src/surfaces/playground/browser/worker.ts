// The playground's verdicts off the page's thread: a scenario in, runScenario's result out. A slow scenario (a list
// over a chain of 2,000 objects takes seconds) then never freezes typing, and the page stops it by ending the worker.
import { runScenario, type ScenarioResult } from '../../../engine/scenario-run.js';
import type { Scenario } from '../../../engine/scenario.js';

export interface VerdictRequest {
  id: number;
  scenario: Scenario;
}
export interface VerdictReply {
  id: number;
  result: ScenarioResult;
}

self.onmessage = (e: MessageEvent<VerdictRequest>) => {
  const reply: VerdictReply = { id: e.data.id, result: runScenario(e.data.scenario) };
  self.postMessage(reply);
};
