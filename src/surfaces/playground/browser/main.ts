// The playground page: editors for a scenario, its verdicts from the server's engine as you type, a decision's path as
// a graph, loading and saving scenario files, and pushing the model and tuples to the service.
import { formatScenario, type Scenario } from '../../../engine/scenario.js';
import type { Outcome } from '../../../engine/scenario-run.js';
import { decide } from './decision.js';
import { EXAMPLES } from './examples.js';
import { failuresFirst, MAX_MARKS, MAX_ROWS } from './limits.js';
import { drawDecision } from './path-graph.js';
import { pushScenario } from './push.js';
import { readScenarioFile } from './scenario-file.js';
import { fromTexts, toTexts, type EditorName, type EditorTexts, type LineMap, type Parsed, type ScenarioMeta } from './text-formats.js';
import { verdictRunner } from './verdicts.js';

/** Must match the editors' line-height in playground.css: gutter marks are placed by line number. */
const LINE_HEIGHT = 18;
/** Verdicts follow typing after this pause; a keystroke's verdict is meant to show within 100 ms. */
const DEBOUNCE_MS = 30;
/** The largest scenario file the page opens. */
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const EDITORS: EditorName[] = ['definitions', 'tuples', 'assertions', 'steps'];
/** Verdicts slower than this dim the list and say they are being worked out. */
const BUSY_MS = 150;

// The worker's script is beside this one, wherever the page is served or built.
const script = document.currentScript;
const verdicts = verdictRunner(script instanceof HTMLScriptElement ? new URL('playground-worker.js', script.src).href : null);

const byId = <T extends HTMLElement>(id: string) => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no #${id}`);
  return e as T;
};
const make = <K extends keyof HTMLElementTagNameMap>(tag: K, props: { className?: string; text?: string } = {}) => {
  const e = document.createElement(tag);
  if (props.className) e.className = props.className;
  if (props.text !== undefined) e.textContent = props.text;
  return e;
};

const editor = Object.fromEntries(EDITORS.map((n) => [n, byId<HTMLTextAreaElement>(n)])) as Record<EditorName, HTMLTextAreaElement>;
const results = byId<HTMLUListElement>('results');
const problemList = byId<HTMLUListElement>('problems');
const summary = byId<HTMLElement>('summary');
const status = byId<HTMLOutputElement>('status');
const nameInput = byId<HTMLInputElement>('name');
const graph = byId('graph') as unknown as SVGSVGElement;
const decisionText = byId<HTMLElement>('decision');

let meta: ScenarioMeta = {};
let scenario: Scenario | null = null;
let selected: string | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let busy: ReturnType<typeof setTimeout> | undefined;
/** Counts evaluations: only the newest one's verdicts are shown. */
let generation = 0;

const texts = (): EditorTexts => ({
  definitions: editor.definitions.value,
  tuples: editor.tuples.value,
  assertions: editor.assertions.value,
  steps: editor.steps.value,
});

/** Where an initial-stage entry was typed: `$.checks[2]` -> the assertions editor's line. */
function lineOf(at: string, lines: LineMap): { editor: EditorName; line: number } | null {
  const m = /^\$\.(\w+)\[(\d+)\]$/.exec(at);
  if (!m || !(m[1]! in lines)) return null;
  const line = lines[m[1] as keyof LineMap][Number(m[2])];
  if (line === undefined) return null;
  return { editor: m[1] === 'tuples' || m[1] === 'grants' ? 'tuples' : 'assertions', line };
}

const describe = (o: Outcome) => o.message ?? `expected ${JSON.stringify(o.expected)}, got ${JSON.stringify(o.actual)}`;

function showGutters(parsed: Parsed, outcomes: Outcome[]) {
  const marks = new Map<EditorName, Array<{ line: number; ok: boolean; title: string }>>(EDITORS.map((n) => [n, []]));
  for (const o of outcomes) {
    const where = lineOf(o.at, parsed.lines);
    if (where) marks.get(where.editor)!.push({ line: where.line, ok: o.ok, title: o.ok ? `${o.what}: passes` : `${o.what}: ${describe(o)}` });
  }
  for (const p of parsed.problems) if (p.line !== undefined) marks.get(p.editor)!.push({ line: p.line, ok: false, title: p.message });
  for (const name of EDITORS) {
    const inner = editor[name].parentElement!.querySelector('.gutter-lines') as HTMLElement;
    inner.replaceChildren(...failuresFirst(marks.get(name)!, MAX_MARKS).shown.map((m) => {
      const mark = make('div', { className: `mark ${m.ok ? 'pass' : 'fail'}`, text: m.ok ? '✓' : '✗' });
      mark.title = m.title;
      mark.style.top = `${(m.line - 1) * LINE_HEIGHT}px`;
      return mark;
    }));
  }
}

/** A last row saying how many a bounded list leaves out. */
const more = (hidden: number, what: string) => (hidden ? [make('li', { className: 'more', text: `… and ${hidden} more ${what}, not listed` })] : []);

function showProblems(parsed: Parsed) {
  const { shown, hidden } = failuresFirst(parsed.problems.map((p) => ({ ...p, ok: false })), MAX_ROWS);
  problemList.replaceChildren(...shown.map((p) => make('li', { className: 'problem', text: `${p.editor}${p.line ? ` line ${p.line}` : ''}: ${p.message}` })),
    ...more(hidden, 'problems'));
}

function showResults(parsed: Parsed, outcomes: Outcome[]) {
  showProblems(parsed);
  const { shown, hidden } = failuresFirst(outcomes, MAX_ROWS);
  const rows = shown.map((o) => {
    const li = make('li', { className: `${o.ok ? 'pass' : 'fail'}${o.kind === 'check' || o.kind === 'query' ? ' decision' : ''}` });
    li.dataset.at = o.at;
    li.dataset.kind = o.kind;
    if (o.at === selected) li.classList.add('selected');
    const where = lineOf(o.at, parsed.lines);
    li.append(make('span', { className: 'icon', text: o.ok ? '✓' : '✗' }), make('span', { className: 'what', text: o.what }),
      make('span', { className: 'where', text: where ? `${where.editor} line ${where.line}` : o.at }));
    if (!o.ok) li.append(make('div', { className: 'detail', text: describe(o) }));
    if (o.kind === 'check') {
      li.tabIndex = 0;
      li.title = 'Show the path of this decision';
    }
    return li;
  });
  results.replaceChildren(...rows, ...more(hidden, 'verdicts'));
  results.classList.remove('stale');
  const failed = outcomes.filter((o) => !o.ok).length;
  summary.textContent = `${outcomes.length - failed} passed, ${failed} failed`;
  summary.className = failed ? 'fail' : 'pass';
}

async function evaluate() {
  clearTimeout(timer);
  clearTimeout(busy);
  const parsed = fromTexts(texts(), { ...meta, name: nameInput.value.trim() || undefined });
  scenario = parsed.scenario;
  const mine = ++generation;
  if (!scenario) {
    // Half-typed JSON: the last verdicts stay, dimmed, until the editors read as a scenario again.
    showProblems(parsed);
    results.classList.add('stale');
    showGutters(parsed, []);
    return;
  }
  busy = setTimeout(() => {
    results.classList.add('stale');
    summary.textContent = 'evaluating…';
    summary.className = '';
  }, BUSY_MS);
  const result = await verdicts(scenario);
  // Null, or not the newest: a later edit's verdicts are on their way.
  if (!result || mine !== generation) return;
  clearTimeout(busy);
  const { outcomes } = result;
  showResults(parsed, outcomes);
  showGutters(parsed, outcomes);
  if (selected) showDecision(selected);
}

function showDecision(at: string) {
  selected = at;
  for (const li of results.querySelectorAll('li.selected')) li.classList.remove('selected');
  results.querySelector(`li[data-at="${CSS.escape(at)}"]`)?.classList.add('selected');
  const d = scenario && decide(scenario, at);
  if (!d) {
    graph.replaceChildren();
    decisionText.textContent = 'That assertion is gone; click a check to see its path.';
    return;
  }
  decisionText.textContent = `${d.subject} ${d.action} ${d.resource}: ${d.allowed ? 'allowed' : 'denied'}. ${d.because}`;
  decisionText.className = d.allowed ? 'pass' : 'fail';
  drawDecision(graph, d);
}

function load(sc: Scenario) {
  meta = { name: sc.name, source: sc.source, description: sc.description };
  nameInput.value = sc.name ?? '';
  const t = toTexts(sc);
  for (const name of EDITORS) editor[name].value = t[name];
  (byId<HTMLDetailsElement>('steps-pane')).open = Boolean(t.steps);
  selected = null;
  graph.replaceChildren();
  decisionText.textContent = 'Click a check among the verdicts to see its path.';
  decisionText.className = '';
  void evaluate();
}

function say(text: string, ok: boolean) {
  status.textContent = text;
  status.className = ok ? 'pass' : 'fail';
}

async function open(file: File) {
  if (file.size > MAX_FILE_BYTES) return say(`${file.name} is over ${MAX_FILE_BYTES / 1024 / 1024} MB`, false);
  const read = readScenarioFile(file.name, await file.text());
  if ('error' in read) return say(read.error, false);
  load(read.scenario);
  say(`Opened ${file.name}`, true);
}

function save() {
  void evaluate();
  if (!scenario) return say('Fix the problems listed first: the editors do not read as a scenario', false);
  const blob = new Blob([`${formatScenario(scenario)}\n`], { type: 'application/json' });
  const a = make('a');
  a.href = URL.createObjectURL(blob);
  a.download = `${(scenario.name ?? 'scenario').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario'}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

async function push() {
  void evaluate();
  if (!scenario) return say('Fix the problems listed first: the editors do not read as a scenario', false);
  const button = byId<HTMLButtonElement>('push');
  button.disabled = true;
  say('Pushing…', true);
  try {
    const r = await pushScenario(scenario, byId<HTMLInputElement>('token').value);
    status.dataset.revision = String(r.revision);
    say(`Pushed ${r.definitions} definitions, ${r.tuples} tuples and ${r.grants} grants at revision ${r.revision}`
      + `${r.skipped.length ? `; left out ${r.skipped.length} the model refuses` : ''}.`, true);
  } catch (e) {
    say(`Push failed: ${(e as Error).message}`, false);
  } finally {
    button.disabled = false;
  }
}

const examples = byId<HTMLSelectElement>('example');
for (const [key, sc] of Object.entries(EXAMPLES)) {
  const option = make('option', { text: sc.name ?? key });
  option.value = key;
  examples.append(option);
}
examples.addEventListener('change', () => {
  const sc = EXAMPLES[examples.value];
  if (sc) load(sc);
});
byId<HTMLInputElement>('open').addEventListener('change', (e) => {
  const file = (e.target as HTMLInputElement).files?.[0];
  if (file) void open(file);
  (e.target as HTMLInputElement).value = '';
});
byId('save').addEventListener('click', save);
byId('push').addEventListener('click', () => void push());
for (const name of EDITORS) {
  const ta = editor[name];
  ta.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void evaluate(), DEBOUNCE_MS);
  });
  const inner = ta.parentElement!.querySelector('.gutter-lines') as HTMLElement;
  ta.addEventListener('scroll', () => {
    inner.style.transform = `translateY(${-ta.scrollTop}px)`;
  });
}
nameInput.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(() => void evaluate(), DEBOUNCE_MS);
});
results.addEventListener('click', (e) => {
  const li = (e.target as Element).closest<HTMLElement>('li[data-kind="check"]');
  if (li?.dataset.at) showDecision(li.dataset.at);
});
results.addEventListener('keydown', (e) => {
  const li = (e.target as Element).closest<HTMLElement>('li[data-kind="check"]');
  if (li?.dataset.at && (e.key === 'Enter' || e.key === ' ')) {
    e.preventDefault();
    showDecision(li.dataset.at);
  }
});

load(EXAMPLES[examples.value] ?? Object.values(EXAMPLES)[0]!);
