// The playground's editors as text: a scenario file split into definitions (JSON), tuples and assertions (one per line)
// and steps (JSON), and joined back, remembering which line each entry came from so verdicts can be shown beside it.
import { parseTupleText } from '../../../engine/ids.js';
import { formatScenario, parseScenario, type Scenario } from '../../../engine/scenario.js';

export type EditorName = 'definitions' | 'tuples' | 'assertions' | 'steps';
export interface EditorTexts {
  definitions: string;
  tuples: string;
  assertions: string;
  steps: string;
}
/** The scenario's own fields that no editor shows; kept as loaded and saved back. */
export interface ScenarioMeta {
  name?: string;
  source?: string;
  description?: string;
}
export interface EditorProblem {
  editor: EditorName;
  line?: number;
  message: string;
}

/** Initial-stage entries by the scenario path they are read back under (`tuples`, `checks`...): their 1-based lines. */
export type LineMap = Record<'tuples' | 'grants' | 'checks' | 'listObjects' | 'listSubjects' | 'invalidTuples', number[]>;

export interface Parsed {
  /** Null while an editor holds something no scenario can be read from (JSON half typed, say). */
  scenario: Scenario | null;
  lines: LineMap;
  problems: EditorProblem[];
}

export const ASSERTION_HELP = [
  'Subject:id action Resource:id = true|false',
  'objects Subject:id action Type = id id …',
  'subjects action Resource:id SubjectType = id id …',
  'refused Subject:id#relation@Resource:id',
].join('\n');

const ids = (list: string[]) => list.join(' ');
/** A refused tuple written as it is: one line, no surrounding space, not read as JSON; else as JSON. */
const plain = (t: unknown): t is string => typeof t === 'string' && t === t.trim() && !/[\r\n]/.test(t) && !/^["{]/.test(t);

/** The editors' texts for a scenario. */
export function toTexts(sc: Scenario): EditorTexts {
  const assertions = [
    ...(sc.checks ?? []).map((c) => `${c.subject} ${c.action} ${c.resource} = ${c.expect}`),
    ...(sc.listObjects ?? []).map((q) => `objects ${q.subject} ${q.action} ${q.type} = ${ids(q.expect)}`),
    ...(sc.listSubjects ?? []).map((q) => `subjects ${q.action} ${q.resource} ${q.subjectType} = ${ids(q.expect)}`),
    ...(sc.invalidTuples ?? []).map((t) => `refused ${plain(t) ? t : JSON.stringify(t)}`),
  ];
  return {
    definitions: formatScenario(sc.definitions ?? []),
    tuples: [...(sc.tuples ?? []), ...(sc.grants ?? []).map((g) => `grant ${g}`)].join('\n'),
    assertions: assertions.join('\n'),
    steps: sc.steps?.length ? formatScenario(sc.steps) : '',
  };
}

/** Lines that hold something: not blank, not a `//` comment. */
function* meaningful(text: string): Generator<[number, string]> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line && !line.startsWith('//')) yield [i + 1, line];
  }
}

/** The scenario the editors describe, the line of each entry, and every problem with its editor and line. */
export function fromTexts(texts: EditorTexts, meta: ScenarioMeta = {}): Parsed {
  const problems: EditorProblem[] = [];
  const lines: LineMap = { tuples: [], grants: [], checks: [], listObjects: [], listSubjects: [], invalidTuples: [] };
  const known = Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)) as ScenarioMeta;
  const sc: Scenario = { ...known, definitions: [], tuples: [], grants: [], checks: [], listObjects: [], listSubjects: [], invalidTuples: [] };

  for (const [line, text] of meaningful(texts.tuples)) {
    const grant = /^grant\s+/.exec(text);
    const tuple = grant ? text.slice(grant[0].length) : text;
    if (!parseTupleText(tuple)) {
      problems.push({ editor: 'tuples', line, message: `not a tuple: expected Subject:id#relation@Resource:id${grant ? '' : ' (or grant Subject:id#permission@Resource:id)'}` });
      continue;
    }
    (grant ? sc.grants! : sc.tuples!).push(tuple);
    lines[grant ? 'grants' : 'tuples'].push(line);
  }
  for (const [line, text] of meaningful(texts.assertions)) {
    const problem = readAssertion(text, sc, lines, line);
    if (problem) problems.push({ editor: 'assertions', line, message: problem });
  }

  const json = (editor: 'definitions' | 'steps', text: string): unknown => {
    if (!text.trim()) return [];
    try {
      return JSON.parse(text);
    } catch (e) {
      problems.push({ editor, message: `not JSON: ${(e as Error).message}` });
      return undefined;
    }
  };
  const definitions = json('definitions', texts.definitions);
  const steps = json('steps', texts.steps);
  if (definitions === undefined || steps === undefined) return { scenario: null, lines, problems };
  // Empty lists are left out, as the project's scenario files leave them out.
  const whole: Record<string, unknown> = { ...sc, definitions, steps };
  for (const [key, value] of Object.entries(whole)) if (Array.isArray(value) && value.length === 0) delete whole[key];
  const read = parseScenario(whole);
  for (const p of read.problems) problems.push({ editor: p.at.startsWith('$.steps') ? 'steps' : 'definitions', message: `${p.at}: ${p.message}` });
  return { scenario: read.scenario, lines, problems };
}

/** Adds one assertion line to the scenario, or says why it is not one. */
function readAssertion(text: string, sc: Scenario, lines: LineMap, line: number): string | null {
  const keyword = /^(objects|subjects|refused)\s+/.exec(text)?.[1];
  if (keyword === 'refused') {
    const rest = text.slice('refused'.length).trim();
    if (!/^["{]/.test(rest)) {
      sc.invalidTuples!.push(rest);
      lines.invalidTuples.push(line);
      return null;
    }
    let t: unknown;
    try {
      t = JSON.parse(rest);
    } catch (e) {
      return `refused takes a tuple, a JSON string or a JSON object; this is not JSON: ${(e as Error).message}`;
    }
    if (typeof t !== 'string' && (typeof t !== 'object' || t === null || Array.isArray(t))) {
      return 'refused takes a tuple, a JSON string or a JSON object with subject, relation, resource';
    }
    sc.invalidTuples!.push(t as string | { subject: unknown; relation: unknown; resource: unknown });
    lines.invalidTuples.push(line);
    return null;
  }
  // Words are split at whitespace, which ids never hold; `=` stands alone, since ids may hold it too.
  const words = text.split(/\s+/).slice(keyword ? 1 : 0);
  if (words[3] !== '=') {
    return words.includes('=') ? `expected three words before "=", found ${words.indexOf('=')}; write one of:\n${ASSERTION_HELP}`
      : `missing " = expected"; write one of:\n${ASSERTION_HELP}`;
  }
  const [a, b, c] = words as [string, string, string];
  const list = words.slice(4);
  const expected = list.join(' ');
  if (keyword === 'objects') {
    sc.listObjects!.push({ subject: a, action: b, type: c, expect: list });
    lines.listObjects.push(line);
  } else if (keyword === 'subjects') {
    sc.listSubjects!.push({ action: a, resource: b, subjectType: c, expect: list });
    lines.listSubjects.push(line);
  } else {
    if (expected !== 'true' && expected !== 'false') return `a check expects true or false, not ${JSON.stringify(expected)}`;
    sc.checks!.push({ subject: a, action: b, resource: c, expect: expected === 'true' });
    lines.checks.push(line);
  }
  return null;
}
