// The benches' data set: users, a team tree and documents, with the Document definition they load it under.
import type { Definition } from '../src/engine/model.js';
import { say } from './report.js';

export interface DataSet {
  tuples: Array<[string, string, string]>;
  users: number;
  teams: number;
  docs: number;
}

/** The Document type the benches register beside the built-in Team and User. */
export const DOCUMENT: Definition = { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
  permissions: { read: ['reader', 'reader->read', 'owner', 'owner->read'], edit: ['owner', 'owner->edit'] } };

/** Users, a three-level team tree and documents owned by leaf teams with two direct readers each: about `n` tuples. */
export function dataSet(n: number): DataSet {
  const users = Math.max(10, Math.round(n / 100));
  const teams = Math.max(7, Math.round(n / 1000));
  const docs = Math.max(1, Math.floor((n - users * 2 - teams) / 3));
  const tuples: Array<[string, string, string]> = [];
  for (let t = 1; t < teams; t++) tuples.push([`Team:t${Math.floor((t - 1) / 4)}`, 'owner', `Team:t${t}`]);
  for (let u = 0; u < users; u++) for (const t of [u % teams, (u * 7) % teams]) tuples.push([`User:u${u}`, 'member', `Team:t${t}`]);
  for (let d = 0; d < docs; d++) {
    tuples.push([`Team:t${teams - 1 - (d % Math.ceil(teams / 2))}`, 'owner', `Document:d${d}`]);
    tuples.push([`User:u${(d * 13) % users}`, 'reader', `Document:d${d}`]);
    tuples.push([`User:u${(d * 29 + 5) % users}`, 'reader', `Document:d${d}`]);
  }
  const unique = [...new Map(tuples.map((t) => [t.join('|'), t])).values()];
  tuples.length = 0;
  for (const t of unique) tuples.push(t); // not push(...unique): a million arguments overflow the stack
  say(`data set: ${tuples.length} tuples (${users} users, ${teams} teams in a tree, ${docs} documents)`);
  return { tuples, users, teams, docs };
}
