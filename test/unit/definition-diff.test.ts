// The diff `authz push` shows: every relation and permission added, removed or changed, in a fixed order.
import { changeLine, definitionChanges } from '../../src/cli/definition-diff.js';

const before = { name: 'Doc', relations: { owner: ['User'], viewer: ['User', 'Team'], old: ['User'] }, permissions: { read: ['viewer', 'owner'] } };

it('lists each change once, relations then permissions, by name; an equal entry is no change', () => {
  const after = { name: 'Doc', relations: { owner: ['User'], viewer: ['User'], added: ['Team'] }, permissions: { read: ['owner', 'viewer'], edit: ['owner'] } };
  expect(definitionChanges(before, after).map(changeLine)).toEqual([
    '+ relation added: [Team]',
    '- relation old: [User]',
    '~ relation viewer: [User, Team] -> [User]',
    '+ permission edit: [owner]',
  ]);
  expect(definitionChanges(before, before)).toEqual([]);
});

it('a reorder of allowed types or entries is no change (the server compares them as sets)', () => {
  const reordered = { name: 'Doc', relations: { old: ['User'], viewer: ['Team', 'User'], owner: ['User'] }, permissions: { read: ['owner', 'viewer'] } };
  expect(definitionChanges(before, reordered)).toEqual([]);
  expect(definitionChanges(before, { ...reordered, permissions: { read: ['owner'] } }).map(changeLine)).toEqual(['~ permission read: [viewer, owner] -> [owner]']);
});

it('a new type is all additions; an inherited name such as constructor is an entry like any other', () => {
  expect(definitionChanges(undefined, { name: 'X', relations: { constructor: ['User'] }, permissions: {} })).toEqual([
    { kind: 'relation', name: 'constructor', op: 'add', after: ['User'] },
  ]);
  expect(definitionChanges({ name: 'X', relations: {}, permissions: {} }, { name: 'X', relations: {}, permissions: { toString: [] } }).map(changeLine))
    .toEqual(['+ permission toString: []']);
});
