// Contract of TeamStore: teams by id and ids, and invitations used once.
import { DuplicateKey } from '../../src/stores/ports/errors.js';
import type { InvitationRecord, TeamRecord, TeamStore } from '../../src/stores/ports/teams.js';
import { instants, withStore, type Make } from './harness.js';

const [at, later] = instants(2);
const team = (id: string, parentTeam?: string): TeamRecord => ({ _id: id, name: `Team ${id}`, createdBy: 'u1', createdAt: at!, ...(parentTeam ? { parentTeam } : {}) });
const invitation = (hash: string): InvitationRecord => ({ _id: hash, teamId: 't1', email: 'a@example.com', invitedBy: 'u1', expiresAt: later! });

export function teamsContract(make: Make<TeamStore>) {
  const t = withStore(make);
  describe('TeamStore', () => {
    it('inserts teams and finds them by id and by ids', t(async ({ store }) => {
      await store.insert(team('t1'));
      await store.insert(team('t2', 't1'));
      expect(await store.findById('t2')).toEqual(team('t2', 't1'));
      expect(await store.findById('t1')).toEqual(team('t1'));
      expect(await store.findById('t3')).toBeNull();
      expect((await store.findByIds(['t2', 't3', 't1', 't1'])).map((x) => x._id).sort()).toEqual(['t1', 't2']);
    }));

    it('refuses a team id taken with DuplicateKey, keeping the first', t(async ({ store }) => {
      await store.insert(team('t1'));
      await expect(store.insert({ ...team('t1'), name: 'other' })).rejects.toBeInstanceOf(DuplicateKey);
      expect((await store.findById('t1'))?.name).toBe('Team t1');
    }));

    it('uses an invitation once: the first delete wins, later ones answer false', t(async ({ store }) => {
      await store.insertInvitation(invitation('h1'));
      await expect(store.insertInvitation(invitation('h1'))).rejects.toBeInstanceOf(DuplicateKey);
      expect(await store.findInvitation('h1')).toEqual(invitation('h1'));
      expect(await store.findInvitation('h2')).toBeNull();
      const both = await Promise.all([store.deleteInvitation('h1'), store.deleteInvitation('h1')]);
      expect(both.sort()).toEqual([false, true]);
      expect(await store.findInvitation('h1')).toBeNull();
    }));
  });
}
