// Local decisions: served only under the epochs they were computed under, and only while trusted.
import { LocalDecisions } from '../../src/services/authorization/local-decisions.js';

function make(max = 100) {
  let trusted = true;
  const d = new LocalDecisions(max);
  d.trustWhile(() => trusted);
  return { d, trust: (t: boolean) => {
    trusted = t;
  } };
}

it('serves a stored decision until its subject or object is invalidated', () => {
  const { d } = make();
  d.put('User:u', 'view', 'Doc:d', true, d.stamp('User:u', 'Doc:d'));
  expect(d.get('User:u', 'view', 'Doc:d')).toBe(true);
  expect(d.get('User:u', 'edit', 'Doc:d')).toBeUndefined();
  d.invalidate(['Doc:other'], false);
  expect(d.get('User:u', 'view', 'Doc:d')).toBe(true);
  d.invalidate(['Doc:d'], false);
  expect(d.get('User:u', 'view', 'Doc:d')).toBeUndefined();
  d.put('User:u', 'view', 'Doc:d', false, d.stamp('User:u', 'Doc:d'));
  d.invalidate(['User:u'], false);
  expect(d.get('User:u', 'view', 'Doc:d')).toBeUndefined();
});

it('refuses an answer computed before an invalidation that arrived while it was computed', () => {
  const { d } = make();
  const before = d.stamp('User:u', 'Doc:d');
  d.invalidate(['User:u'], false);
  d.put('User:u', 'view', 'Doc:d', true, before);
  expect(d.get('User:u', 'view', 'Doc:d')).toBeUndefined();
  const beforeReset = d.stamp('User:u', 'Doc:d');
  d.reset();
  d.put('User:u', 'view', 'Doc:d', true, beforeReset);
  expect(d.get('User:u', 'view', 'Doc:d')).toBeUndefined();
});

it('a structure change drops every decision', () => {
  const { d } = make();
  for (let i = 0; i < 10; i++) d.put(`User:${i}`, 'view', 'Doc:d', true, d.stamp(`User:${i}`, 'Doc:d'));
  expect(d.size).toBe(10);
  d.invalidate([], true);
  expect(d.size).toBe(0);
  expect(d.get('User:1', 'view', 'Doc:d')).toBeUndefined();
});

it('serves and stores nothing while untrusted, and keeps at most max entries', () => {
  const { d, trust } = make(3);
  d.put('User:u', 'view', 'Doc:d', true, d.stamp('User:u', 'Doc:d'));
  trust(false);
  expect(d.get('User:u', 'view', 'Doc:d')).toBeUndefined();
  expect(d.stamp('User:u', 'Doc:d')).toBeNull();
  trust(true);
  for (let i = 0; i < 5; i++) d.put(`User:${i}`, 'view', 'Doc:d', true, d.stamp(`User:${i}`, 'Doc:d'));
  expect(d.size).toBe(3);
  expect(d.get('User:0', 'view', 'Doc:d')).toBeUndefined();
  expect(d.get('User:4', 'view', 'Doc:d')).toBe(true);
  const none = new LocalDecisions(0);
  none.trustWhile(() => true);
  expect(none.stamp('User:u', 'Doc:d')).toBeNull();
});
