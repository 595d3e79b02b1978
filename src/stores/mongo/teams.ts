// Team records and pending invitations in MongoDB; membership itself lives only in relation tuples.
import type { Db } from 'mongodb';
import type { InvitationRecord, TeamRecord, TeamStore } from '../ports/teams.js';
import { findByIds } from './by-ids.js';
import { COLLECTIONS } from './connection.js';
import { neutralDuplicate } from './duplicate-key.js';

export function mongoTeamStore(db: Db): TeamStore {
  const teams = db.collection<TeamRecord>(COLLECTIONS.teams);
  const invitations = db.collection<InvitationRecord>(COLLECTIONS.invitations);
  return {
    async insert(team) {
      await neutralDuplicate(() => teams.insertOne(team));
    },
    findById: (id) => teams.findOne({ _id: id }),
    findByIds: (ids) => findByIds(teams, ids),
    async insertInvitation(inv) {
      await neutralDuplicate(() => invitations.insertOne(inv));
    },
    findInvitation: (hash) => invitations.findOne({ _id: hash }),
    // A delete counts what it removed: of two joins racing with one token, exactly one wins.
    async deleteInvitation(hash) {
      return (await invitations.deleteOne({ _id: hash })).deletedCount === 1;
    },
  };
}
