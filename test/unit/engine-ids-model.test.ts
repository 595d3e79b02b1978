// Identifiers and definition validation: the pure rules of DESIGN.md section 4.
import { parseObject, parseTupleText } from '../../src/engine/ids.js';
import { arrowTargetProblems, deadArrows } from '../../src/engine/arrow-targets.js';
import { Model, validateDefinition } from '../../src/engine/model.js';
import { lintScenario } from '../../src/engine/scenario-lint.js';

describe('identifiers', () => {
  it.each([
    ['Document:a:b', { type: 'Document', id: 'a:b' }],
    ['User:u-1.x', { type: 'User', id: 'u-1.x' }],
    ['Document:', null],
    ['1Doc:x', null],
    ['Doc:a#b', null],
    ['Doc:a b', null],
    ['Doc:a@b', null],
    ['nocolon', null],
  ])('parseObject(%s)', (text, expected) => {
    expect(parseObject(text)).toEqual(expected);
  });
  it('ids of up to 1,024 UTF-8 bytes, as SpiceDB, with the longest type name', () => {
    const type = `T${'y'.repeat(127)}`;
    expect(parseObject(`${type}:${'a+/='.repeat(256)}`)).toEqual({ type, id: 'a+/='.repeat(256) });
    expect(parseObject(`${type}:${'a'.repeat(1025)}`)).toBeNull();
    expect(parseObject(`Doc:${'é'.repeat(512)}`)).not.toBeNull();
    expect(parseObject(`Doc:${'é'.repeat(513)}`)).toBeNull();
  });
  it('parses tuple text at the first # and the following @', () => {
    expect(parseTupleText('Team:t#owner@Document:a:b')).toEqual({ subject: 'Team:t', relation: 'owner', resource: 'Document:a:b' });
    expect(parseTupleText('Team:t#own er@Document:d')).toBeNull();
    expect(parseTupleText('Team:t@Document:d')).toBeNull();
  });
});

describe('definition validation', () => {
  const base = { name: 'Doc', relations: { owner: ['User'] }, permissions: { read: ['owner'] } };
  it('accepts a good definition', () => {
    expect(validateDefinition(base, new Set(['User']))).toEqual([]);
  });
  it.each([
    ['unknown subject type', { relations: { owner: ['Robot'] } }, 'unknown subject type Robot'],
    ['unknown entry', { permissions: { read: ['nope'] } }, 'unknown relation or permission'],
    ['arrow from a non-relation', { permissions: { read: ['owner'], see: ['read->x'] } }, 'is not a relation'],
    ['name both relation and permission', { permissions: { owner: ['owner'] } }, 'both a relation and a permission'],
    ['bad relation name', { relations: { 'a-b': ['User'] } }, 'bad relation name'],
    ['bad arrow target', { permissions: { read: ['owner->1x'] } }, 'bad arrow target'],
  ])('rejects %s', (_label, patch, message) => {
    const problems = validateDefinition({ ...base, ...patch }, new Set(['User']));
    expect(problems.map((p) => p.message).join('\n')).toContain(message);
  });
  it('tuple validity follows the resource definition', () => {
    const m = new Model([{ name: 'Doc', relations: { owner: ['User'], any: ['*'] }, permissions: { read: ['owner'] } }]);
    expect(m.tupleProblem({ subject: 'User:u', relation: 'owner', resource: 'Doc:d' })).toBeNull();
    expect(m.tupleProblem({ subject: 'Team:t', relation: 'owner', resource: 'Doc:d' })?.code).toBe('RELATION_NOT_ALLOWED');
    expect(m.tupleProblem({ subject: 'User:u', relation: 'nope', resource: 'Doc:d' })?.code).toBe('RELATION_NOT_DEFINED');
    expect(m.tupleProblem({ subject: 'User:u', relation: 'owner', resource: 'Nope:d' })?.code).toBe('UNKNOWN_TYPE');
    expect(m.writeProblem({ subject: 'Robot:r', relation: 'owner', resource: 'Doc:d' })?.code).toBe('RELATION_NOT_ALLOWED');
    expect(m.tupleProblem({ subject: 'Robot:r', relation: 'any', resource: 'Doc:d' })).toBeNull();
  });
  it('a tuple refused in one order but valid in the other names the swap', () => {
    const m = new Model([{ name: 'Doc', relations: { owner: ['User'] }, permissions: {} }, { name: 'Box', relations: { holder: ['Doc'] }, permissions: {} }]);
    expect(m.writeProblem({ subject: 'Doc:d', relation: 'owner', resource: 'User:u' })).toEqual({
      code: 'RELATION_NOT_DEFINED',
      message: 'User has no relation owner; subject and resource may be swapped: did you mean User:u#owner@Doc:d?',
    });
    // holder exists on the subject's type, not the resource's
    expect(m.writeProblem({ subject: 'Box:b', relation: 'holder', resource: 'Doc:d' })?.message).toBe(
      'Doc has no relation holder; subject and resource may be swapped: did you mean Doc:d#holder@Box:b?',
    );
    // reversed would not be valid either: no hint
    expect(m.writeProblem({ subject: 'Doc:d', relation: 'nope', resource: 'User:u' })?.message).toBe('User has no relation nope');
  });
});

describe('arrow targets', () => {
  const folder = { name: 'Folder', relations: { viewer: ['User'], parent: ['Folder'] }, permissions: { view: ['viewer', 'parent->view'] } };
  it('refuses r->b when every type r allows is defined and none declares b, with a did-you-mean', () => {
    const m = new Model([folder]);
    const doc = { name: 'Doc', relations: { parent: ['Folder', 'User'] }, permissions: { read: ['parent->veiw'] } };
    expect(arrowTargetProblems(doc, m)).toEqual([{ path: 'permissions.read',
      message: 'entry parent->veiw: no type parent allows (Folder, User) declares veiw (did you mean parent->view?)' }]);
    expect(arrowTargetProblems({ ...folder, permissions: { view: ['viewer', 'parent->veiw'] } }, m)).toHaveLength(1);
    expect(arrowTargetProblems({ ...doc, permissions: { read: ['parent->view'] } }, m)).toEqual([]);
  });
  it('accepts an arrow through a type defined later, through *, and one far from every name (it grants nothing)', () => {
    const m = new Model([folder]);
    expect(arrowTargetProblems({ name: 'Doc', relations: { parent: ['Folder', 'Drive'] }, permissions: { read: ['parent->veiw'] } }, m)).toEqual([]);
    expect(arrowTargetProblems({ name: 'Doc', relations: { parent: ['*'] }, permissions: { read: ['parent->veiw'] } }, m)).toEqual([]);
    const audit = { name: 'Doc', relations: { parent: ['Folder'] }, permissions: { audit: ['parent->audit'] } };
    expect(arrowTargetProblems(audit, m)).toEqual([]);
    expect(deadArrows(audit, m)).toEqual([expect.objectContaining({ path: 'permissions.audit', suggestion: undefined, refused: false })]);
  });
  it('refuses one slip (a letter added, dropped, changed or two swapped), not a name two edits away', () => {
    const m = new Model([{ name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'], edit: ['viewer'] } }]);
    const doc = (target: string) => ({ name: 'Doc', relations: { parent: ['Folder'] }, permissions: { p: [`parent->${target}`] } });
    for (const slip of ['veiw', 'viewr', 'vieww', 'vie', 'viex', 'Edit']) expect(arrowTargetProblems(doc(slip), m)).toHaveLength(1);
    // audit is two edits from edit: the fuzzers and the reference store such arrows; validate only warns.
    expect(arrowTargetProblems(doc('audit'), m)).toEqual([]);
    expect(deadArrows(doc('audit'), m)).toEqual([expect.objectContaining({ suggestion: 'edit', refused: false })]);
  });
  it('authz validate warns of an arrow that can never grant; a near miss is a refused definition, not also warned of', () => {
    const problems = lintScenario({ definitions: [folder, { name: 'Doc', relations: { parent: ['Folder'] }, permissions: { audit: ['parent->audit'], read: ['parent->veiw'] } }] });
    expect(problems).toEqual([{
      severity: 'error',
      at: '$.definitions[1].permissions.read',
      message: 'define Doc: the server refuses it (INVALID_DEFINITION): entry parent->veiw: no type parent allows (Folder) declares veiw (did you mean parent->view?)',
    }]);
    const farOnly = lintScenario({ definitions: [folder, { name: 'Doc', relations: { parent: ['Folder'] }, permissions: { audit: ['parent->audit'] } }] });
    expect(farOnly).toEqual([{ severity: 'warning', at: '$.definitions[1].permissions.audit',
      message: 'entry parent->audit: no type parent allows (Folder) declares audit: it never grants anything' }]);
  });
});
