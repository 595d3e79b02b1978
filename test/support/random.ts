// A seeded generator (mulberry32) and random valid scenarios, for fuzzing without ../shared.
import { mulberry32 } from '../../src/cli/random.js';
import type { Check, RawDefinition, Scenario } from './scenarios.js';

export function rng(seed: number) {
  const next = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(arr: readonly T[]): T => arr[Math.floor(next() * arr.length)]!;
  const shuffle = <T>(arr: readonly T[]): T[] => {
    const out = [...arr];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return { next, int, pick, shuffle };
}

const TEAM_RELS: Record<string, string[]> = { member: ['User'], owner: ['User', 'Team'], readAll: ['User', 'Team'], editAll: ['User', 'Team'] };

/** A random model over Doc/Folder/Group plus the built-ins, random tuples, then delete steps. */
export function randomScenario(seed: number, nTuples = 30, nChecks = 40): Scenario {
  const r = rng(seed);
  const types = ['Doc', 'Folder', 'Group'];
  const defs: RawDefinition[] = types.map((name) => ({ name, relations: {}, permissions: {} }));
  const relsOf = new Map<string, string[]>([['Team', Object.keys(TEAM_RELS)]]);
  for (const d of defs) {
    const rels = r.shuffle(['owner', 'parent', 'viewer', 'member']).slice(0, r.int(1, 3));
    for (const rel of rels) {
      d.relations![rel] = r.next() < 0.05 ? ['*'] : r.shuffle(['User', 'Team', ...types]).slice(0, r.int(1, 3));
    }
    relsOf.set(d.name, rels);
  }
  const permsOf = new Map<string, string[]>();
  for (const d of defs) permsOf.set(d.name, r.shuffle(['view', 'edit', 'share']).slice(0, r.int(1, 3)));
  for (const d of defs) {
    const rels = relsOf.get(d.name)!;
    for (const p of permsOf.get(d.name)!) {
      const entries = new Set<string>();
      for (let k = r.int(1, 3); k > 0; k--) {
        const roll = r.next();
        if (roll < 0.03) entries.add('*');
        else if (roll < 0.4) entries.add(r.pick(rels));
        else if (roll < 0.55) {
          const q = r.pick(permsOf.get(d.name)!);
          if (q !== p || r.next() < 0.3) entries.add(q);
        }
        else entries.add(`${r.pick(rels)}->${r.pick(['view', 'edit', 'read', 'member', 'owner', 'share', 'parent'])}`);
      }
      d.permissions![p] = [...entries];
    }
  }
  const objects = (type: string) => Array.from({ length: 3 }, (_, i) => `${type}:${type.toLowerCase()}${i}`);
  const allTypes = ['User', 'Team', ...types];
  const tuples = new Set<string>();
  for (let i = 0; i < nTuples * 4 && tuples.size < nTuples; i++) {
    const resType = r.pick(['Team', ...types]);
    const rels = resType === 'Team' ? TEAM_RELS : defs.find((d) => d.name === resType)!.relations!;
    const rel = r.pick(Object.keys(rels));
    const allowed = rels[rel]!;
    const subType = allowed.includes('*') ? r.pick(allTypes) : r.pick(allowed);
    tuples.add(`${r.pick(objects(subType))}#${rel}@${r.pick(objects(resType))}`);
  }
  const grants = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const t = r.pick(types);
    grants.add(`${r.pick(objects(r.pick(['User', 'Team'])))}#${r.pick(permsOf.get(t)!)}@${r.pick(objects(t))}`);
  }
  const checks = (): Check[] =>
    Array.from({ length: nChecks }, () => ({
      subject: r.pick(objects(r.pick(allTypes))),
      action: r.pick(['view', 'edit', 'share', 'read', 'owner', 'parent', 'member']),
      resource: r.pick(objects(r.pick(allTypes))),
      expect: false,
    }));
  const list = [...tuples];
  return {
    name: `random ${seed}`,
    source: 'test/support/random.ts',
    definitions: defs,
    tuples: list,
    grants: [...grants],
    checks: checks(),
    steps: [
      { op: 'delete', tuples: r.shuffle(list).slice(0, Math.ceil(list.length / 3)), checks: checks() },
      { op: 'delete', grants: [[...grants][0]!], checks: checks() },
    ],
  };
}
