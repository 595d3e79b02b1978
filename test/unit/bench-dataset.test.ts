// The comparison bench judges every system by its data set's own answers: those answers must be the engine's.
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model } from '../../src/engine/model.js';
import { checkPairs, coldProbes, dataSet } from '../../bench/compare/dataset.js';
import { parseScale } from '../../bench/compare/scale.js';

const DOCUMENT = { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] }, permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'] } };

describe('bench data set', () => {
  const set = dataSet(12_000);
  const tuples = [...set.tuples()].map(([subject, relation, resource]) => ({ subject, relation, resource }));
  const ev = new Evaluator(new Model([DOCUMENT]), tuples);

  it('has no duplicate tuples and the size it reports', () => {
    expect(new Set(tuples.map((t) => `${t.subject}#${t.relation}@${t.resource}`)).size).toBe(tuples.length);
    expect(set.size).toBe(tuples.length);
  });

  it('answers checks as the evaluator does, half of them allowed', () => {
    const pairs = checkPairs(set, 3_000, 1);
    expect(new Set(pairs.map(([u, d]) => `${u}:${d}`)).size).toBe(pairs.length);
    let allowed = 0;
    for (const [u, d] of pairs) {
      const want = ev.can(`User:u${u}`, 'read', `Document:d${d}`);
      expect([u, d, set.allowed(u, d)]).toEqual([u, d, want]);
      if (want) allowed++;
    }
    expect(allowed / pairs.length).toBeGreaterThan(0.45);
  });

  it('gives each list probe, cold and warm, exactly its count of readable documents, every probe a distinct subject', () => {
    expect(set.lists.map((l) => [l.count, l.cold.length])).toEqual([[10, 48], [100, 4]]);
    const users = set.lists.flatMap((l) => [...l.cold, l.warm]);
    expect(new Set(users).size).toBe(users.length);
    for (const { cold, warm, count } of set.lists) {
      for (const user of [...cold, warm]) expect([user, ev.listObjects(`User:${user}`, 'read', 'Document').length]).toEqual([user, count]);
    }
  });

  it('gives each list size at 1M enough cold probes for a median, within 4% of the tuples a size', () => {
    const docs = 326_333;
    expect([10, 100, 1000, 10000].map((k) => coldProbes(1_000_000, k, docs))).toEqual([50, 50, 40, 4]);
    expect(coldProbes(100_000, 10000, 32_000)).toBe(0);
  });

  it('reads scales as tuple counts', () => {
    expect([parseScale('10k'), parseScale('100K'), parseScale('1M'), parseScale('2500')]).toEqual([10_000, 100_000, 1_000_000, 2_500]);
    expect(() => parseScale('lots')).toThrow(/--scale/);
  });
});
