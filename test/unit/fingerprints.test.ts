// The prune's memory of imported tuples: a set of fingerprints must answer as a set of the texts would.
import { Fingerprints } from '../../src/services/state/fingerprints.js';

describe('fingerprints', () => {
  it('holds what was added, and nothing else, through growth', () => {
    const f = new Fingerprints();
    const n = 20_000;
    for (let i = 0; i < n; i++) f.add(`tUser:u${i} reader Document:d${i}`);
    for (let i = 0; i < n; i += 7) f.add(`tUser:u${i} reader Document:d${i}`); // repeats change nothing
    expect(f.size).toBe(n);
    let held = 0;
    let other = 0;
    for (let i = 0; i < n; i++) {
      if (f.has(`tUser:u${i} reader Document:d${i}`)) held++;
      if (f.has(`gUser:u${i} reader Document:d${i}`)) other++;
    }
    expect([held, other]).toEqual([n, 0]);
    expect(f.has('')).toBe(false);
    expect(f.bytes / n).toBeLessThan(44);
  });
});
