// The playground's pure parts: the editors' text formats (every shipped scenario survives the round trip, a bad line is
// named by its line), the decision behind a clicked check, and the path graph's layers.
import { canonical } from '../../src/engine/canonical.js';
import { runScenario } from '../../src/engine/scenario-run.js';
import { formatScenario, parseScenario, type Scenario } from '../../src/engine/scenario.js';
import { decide } from '../../src/surfaces/playground/browser/decision.js';
import { EXAMPLES } from '../../src/surfaces/playground/browser/examples.js';
import { layoutDecision } from '../../src/surfaces/playground/browser/path-graph.js';
import { fromTexts, toTexts, type EditorTexts } from '../../src/surfaces/playground/browser/text-formats.js';
import { loadCases } from '../support/scenarios.js';

const texts = (over: Partial<EditorTexts>): EditorTexts => ({ definitions: '[]', tuples: '', assertions: '', steps: '', ...over });

describe('editor texts', () => {
  it.each(loadCases().map((c) => [c.file, c.scenario as Scenario]))('%s survives toTexts -> fromTexts unchanged', (_file, scenario) => {
    const { name, source, description } = scenario;
    const back = fromTexts(toTexts(scenario), { name, source, description });
    expect(back.problems).toEqual([]);
    // Empty lists are left out when written back; nothing else changes.
    const nonEmpty = Object.fromEntries(Object.entries(scenario).filter(([, v]) => !(Array.isArray(v) && v.length === 0)));
    expect(canonical(back.scenario)).toBe(canonical(nonEmpty));
  });

  it('reads each kind of assertion, grants, comments and blank lines, and remembers their lines', () => {
    const parsed = fromTexts(texts({
      tuples: '// a comment\nUser:a#viewer@Doc:1\n\ngrant User:b#read@Doc:1',
      assertions:
        'User:a read Doc:1 = true\nobjects User:a read Doc = 1 2\nsubjects read Doc:1 User = a b\nrefused User:a#nope@Doc:1\nrefused {"subject":1,"relation":"r","resource":"Doc:1"}\nobjects User:c read Doc =\nrefused " User:a#r@Doc:1"',
    }));
    expect(parsed.problems).toEqual([]);
    expect(parsed.scenario).toEqual({
      tuples: ['User:a#viewer@Doc:1'],
      grants: ['User:b#read@Doc:1'],
      checks: [{ subject: 'User:a', action: 'read', resource: 'Doc:1', expect: true }],
      listObjects: [{ subject: 'User:a', action: 'read', type: 'Doc', expect: ['1', '2'] }, { subject: 'User:c', action: 'read', type: 'Doc', expect: [] }],
      listSubjects: [{ action: 'read', resource: 'Doc:1', subjectType: 'User', expect: ['a', 'b'] }],
      invalidTuples: ['User:a#nope@Doc:1', { subject: 1, relation: 'r', resource: 'Doc:1' }, ' User:a#r@Doc:1'],
    });
    expect(parsed.lines).toEqual({ tuples: [2], grants: [4], checks: [1], listObjects: [2, 6], listSubjects: [3], invalidTuples: [4, 5, 7] });
  });

  it('leaves unknown scenario fields out rather than writing them as null', () => {
    const parsed = fromTexts(texts({ tuples: 'User:a#viewer@Doc:1' }), { name: 'n', source: undefined, description: undefined });
    expect(parsed.scenario).toEqual({ name: 'n', tuples: ['User:a#viewer@Doc:1'] });
    expect(JSON.parse(formatScenario({ name: 'n', description: undefined, tuples: [] }))).toEqual({ name: 'n', tuples: [] });
  });

  it('names each bad line, keeps reading the good ones, and reports JSON and shape problems by editor', () => {
    const parsed = fromTexts(texts({
      tuples: 'User:a#viewer@Doc:1\nUser:a viewer Doc:1',
      assertions: 'User:a read Doc:1 = maybe\nUser:a read = true\nUser:a read Doc:1\nUser:a read Doc:1 =true',
    }));
    expect(parsed.problems.map((p) => [p.editor, p.line])).toEqual([['tuples', 2], ['assertions', 1], ['assertions', 2], ['assertions', 3], ['assertions', 4]]);
    expect(parsed.problems[1]!.message).toContain('true or false');
    expect(parsed.scenario?.tuples).toEqual(['User:a#viewer@Doc:1']);

    const broken = fromTexts(texts({ definitions: '[{"name": "Doc",' }));
    expect(broken.scenario).toBeNull();
    expect(broken.problems).toEqual([{ editor: 'definitions', message: expect.stringContaining('not JSON') }]);
    const shape = fromTexts(texts({ definitions: '[{"name": 3}]', steps: '[{"op": "rename"}]' }));
    expect(shape.scenario).toBeNull();
    expect(shape.problems).toEqual([
      { editor: 'definitions', message: '$.definitions[0].name: must be a string' },
      { editor: 'steps', message: expect.stringMatching(/^\$\.steps\[0\]\.op: must be one of/) },
    ]);
  });
});

describe('decisions and their path graphs', () => {
  const example = EXAMPLES['folders-teams-documents']!;

  it('the examples pass, as the playground opens with them', () => {
    for (const sc of Object.values(EXAMPLES)) {
      expect(parseScenario(sc).problems).toEqual([]);
      expect(runScenario(sc).failed).toBe(0);
    }
  });

  it('explains an allowed check by the tuples from the subject to the resource, layered in that order', () => {
    const d = decide(example, '$.checks[0]')!;
    expect(d).toMatchObject({ subject: 'User:dev', action: 'read', resource: 'Document:rfc', allowed: true });
    expect(d.path).toEqual(['User:dev#member@Team:eng', 'Team:eng#owner@Folder:specs', 'Folder:specs#parent@Folder:api', 'Folder:api#owner@Document:rfc']);
    const g = layoutDecision(d);
    expect(g.nodes.map((n) => [n.id, n.layer])).toEqual([['User:dev', 0], ['Team:eng', 1], ['Folder:specs', 2], ['Folder:api', 3], ['Document:rfc', 4]]);
    expect(g.edges.map((e) => e.label)).toEqual(['member', 'owner', 'parent', 'owner']);
    expect(new Set(g.nodes.map((n) => n.y)).size).toBe(5);
  });

  it('draws a denied check as the subject and resource with no path, and finds checks in steps', () => {
    const denied = decide(example, '$.checks[1]')!;
    expect(denied).toMatchObject({ subject: 'User:dev', action: 'edit', allowed: false, path: [] });
    expect(layoutDecision(denied).edges).toEqual([{ from: 'User:dev', to: 'Document:rfc', label: 'no path', kind: 'none' }]);
    const pages = EXAMPLES['public-pages']!;
    // Only after the step's tuple does User:ed edit the comment: the step's state is the one explained.
    expect(decide(pages, '$.steps[0].checks[0]')).toMatchObject({ allowed: true, path: ['User:ed#editor@Page:p1', 'Page:p1#page@Comment:c1'] });
    expect(decide(pages, '$.checks[0]')).toMatchObject({ allowed: true, path: [], because: expect.stringContaining('public') });
    expect(layoutDecision(decide(pages, '$.checks[0]')!).edges[0]!.kind).toBe('public');
    expect(decide(pages, '$.checks[9]')).toBeNull();
    expect(decide(pages, '$.listObjects[0]')).toBeNull();
  });
});
