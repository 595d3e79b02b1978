// What pushing a definition changes on the server: each relation and permission added, removed or changed, readable.
import type { Definition } from '../engine/model.js';

export interface EntryChange {
  kind: 'relation' | 'permission';
  name: string;
  op: 'add' | 'remove' | 'change';
  before?: string[];
  after?: string[];
}

/** Allowed types and permission entries are sets to the server (it compares them so), so a reorder is no change. */
const same = (a: string[], b: string[]) => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

/** The changes from `before` (absent: a new type) to `after`, relations first, each part in name order. */
export function definitionChanges(before: Definition | undefined, after: Definition): EntryChange[] {
  const out: EntryChange[] = [];
  for (const kind of ['relation', 'permission'] as const) {
    const key = kind === 'relation' ? 'relations' : 'permissions';
    const was = before?.[key] ?? {};
    const now = after[key];
    for (const name of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
      const b = Object.hasOwn(was, name) ? was[name] : undefined;
      const a = Object.hasOwn(now, name) ? now[name] : undefined;
      if (b && a) { if (!same(b, a)) out.push({ kind, name, op: 'change', before: b, after: a }); }
      else if (a) out.push({ kind, name, op: 'add', after: a });
      else if (b) out.push({ kind, name, op: 'remove', before: b });
    }
  }
  return out;
}

const list = (v: string[] | undefined) => `[${(v ?? []).join(', ')}]`;

/** One line per change: `+ relation viewer: [User, Team]`, `~ permission read: [viewer] -> [viewer, owner]`. */
export function changeLine(c: EntryChange): string {
  if (c.op === 'add') return `+ ${c.kind} ${c.name}: ${list(c.after)}`;
  if (c.op === 'remove') return `- ${c.kind} ${c.name}: ${list(c.before)}`;
  return `~ ${c.kind} ${c.name}: ${list(c.before)} -> ${list(c.after)}`;
}
