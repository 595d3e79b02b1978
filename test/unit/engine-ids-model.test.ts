// Identifiers and definition validation: the pure rules of DESIGN.md section 4.
import { parseObject, parseTupleText } from '../../src/engine/ids.js';
import { Model, validateDefinition } from '../../src/engine/model.js';

describe('identifiers', () => {
  it.each([
    ['Document:a:b', { type: 'Document', id: 'a:b' }],
    ['User:u-1.x', { type: 'User', id: 'u-1.x' }],
    ['Document:', null], ['1Doc:x', null], ['Doc:a#b', null], ['Doc:a b', null], ['Doc:a@b', null], ['nocolon', null],
  ])('parseObject(%s)', (text, expected) => {
    expect(parseObject(text)).toEqual(expected);
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
});
