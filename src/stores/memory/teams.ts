// In-memory twin of the MongoDB team store: teams and their single-use invitations.
import type { InvitationRecord, TeamRecord, TeamStore } from '../ports/teams.js';
import { copy, insertNew } from './copy.js';

export function memoryTeamStore(): TeamStore {
  const teams = new Map<string, TeamRecord>();
  const invitations = new Map<string, InvitationRecord>();
  return {
    async insert(team) {
      insertNew(teams, team);
    },
    async findById(id) {
      return copy(teams.get(id) ?? null);
    },
    async findByIds(ids) {
      return [...new Set(ids)].flatMap((id) => (teams.has(id) ? [copy(teams.get(id)!)] : []));
    },
    async insertInvitation(inv) {
      insertNew(invitations, inv);
    },
    async findInvitation(hash) {
      return copy(invitations.get(hash) ?? null);
    },
    async deleteInvitation(hash) {
      return invitations.delete(hash);
    },
  };
}
