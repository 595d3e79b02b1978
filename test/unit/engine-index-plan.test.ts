// The model's part of a check (engine/index-plan.ts): what the index reads for one pair of types and one action.
import { indexPlan, splitKey, validity } from '../../src/engine/index-plan.js';
import { Model } from '../../src/engine/model.js';

const model = new Model([
  { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'], anyone: ['*'] },
    permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read', 'edit'], edit: ['owner', 'owner->edit'], open: ['*'] } },
]);

it('names the relations that admit the subject type, every permission of the closure, and the arrows that lead anywhere', () => {
  expect(indexPlan(model, 'User', 'Document', 'read')).toEqual({
    public: false,
    direct: ['owner', 'reader'],
    grants: ['edit', 'read'],
    // reader->read and owner->read lead on only from a Team (a User has no read); owner->edit likewise.
    arrows: [{ rel: 'owner', targets: ['edit', 'read'], types: ['Team'] }, { rel: 'reader', targets: ['read'], types: ['Team'] }],
    slots: expect.arrayContaining(['Document#owner', 'Document#reader', 'Document#anyone', 'Team#member', 'Document#read!', 'Team#read!']),
  });
  expect(indexPlan(model, 'User', 'Document', 'read').slots).not.toContain('Team#owner!');
  expect(indexPlan(model, 'Robot', 'Document', 'read').direct).toEqual([]);
  expect(indexPlan(model, 'Robot', 'Document', 'read').slots).toEqual(expect.arrayContaining(['Document#anyone']));
});

it('says public for an action anyone has; nothing for a relation, an unknown action or type', () => {
  expect(indexPlan(model, 'User', 'Document', 'open').public).toBe(true);
  for (const [type, action] of [['Document', 'owner'], ['Document', 'nothing'], ['Nowhere', 'read']]) {
    expect(indexPlan(model, 'User', type!, action!)).toEqual({ public: false, direct: [], grants: [], arrows: [], slots: [] });
  }
});

it('splits a key at its last #, and lists what the model admits for a list of named objects', () => {
  expect(splitKey('Doc:a#b#reader')).toEqual({ obj: 'Doc:a#b', rel: 'reader' });
  expect(splitKey('Doc:a#read!')).toEqual({ obj: 'Doc:a', rel: 'read!' });
  const v = validity(model);
  expect(v.allowed['Document#anyone']).toEqual(['*']);
  expect(v.perms).toEqual(expect.arrayContaining(['Document#read', 'Team#read']));
});
