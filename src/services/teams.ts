// Teams for client users: records in MongoDB, membership and ownership only as tuples through the write path.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import type { TupleReads } from '../stores/ports/tuples.js';
import type { TeamRecord, TeamStore } from '../stores/ports/teams.js';
import type { UserStore } from '../stores/ports/users.js';
import type { Checks } from './authorization/checks.js';
import type { Relations } from './authorization/relations.js';

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const me = (userId: string) => `User:${userId}`;
const teamObject = (id: string) => `Team:${id}`;
export const teamView = (t: TeamRecord) => ({ _id: t._id, name: t.name, parentTeam: t.parentTeam ?? null, createdAt: t.createdAt });

export class Teams {
  constructor(private readonly deps: { teams: TeamStore; users: UserStore; store: TupleReads; relations: Relations; checks: Checks }) {}

  private async allowed(userId: string, action: string, teamId: string): Promise<void> {
    // Writes return once applied and bump the decision cache, so the caller's own changes are seen here.
    if (!(await this.deps.checks.can(me(userId), action, teamObject(teamId)))) {
      throw new AppError('FORBIDDEN', `You need ${action} on team ${teamId}`);
    }
  }

  async create(userId: string, name: string, parentTeam?: string) {
    const { teams, relations } = this.deps;
    // A parent team may exist only as tuples (an operator's `Team:x`): the permission is what counts.
    if (parentTeam !== undefined) await this.allowed(userId, 'manageSubTeams', parentTeam);
    const team: TeamRecord = { _id: randomUUID(), name, createdBy: userId, createdAt: new Date(), ...(parentTeam ? { parentTeam } : {}) };
    // Tuples first: a crash in between leaves tuples on a team without a record (harmless), never a team nobody owns.
    await relations.create({ subject: me(userId), relation: 'owner', resource: teamObject(team._id) });
    if (parentTeam) await relations.create({ subject: teamObject(parentTeam), relation: 'owner', resource: teamObject(team._id) });
    await teams.insert(team);
    return teamView(team);
  }

  /** The teams the caller can read, from the index (no walk over memberships). */
  async list(userId: string, skip: number, limit: number) {
    const page = await this.deps.checks.listObjects(me(userId), 'read', 'Team', skip, limit);
    const ids = page.objects.map((o) => o.slice('Team:'.length));
    const byId = new Map((await this.deps.teams.findByIds(ids)).map((t) => [t._id, t]));
    // Teams made by tuples alone (an operator's `Team:x`) have no record: they are listed by id.
    return { teams: ids.map((id) => (byId.has(id) ? teamView(byId.get(id)!) : { _id: id, name: null, parentTeam: null })), count: page.count };
  }

  async invite(userId: string, teamId: string, email: string) {
    await this.allowed(userId, 'invite', teamId);
    const invitationToken = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
    await this.deps.teams.insertInvitation({ _id: hashOf(invitationToken), teamId, email: email.trim().toLowerCase(), invitedBy: userId, expiresAt });
    return { invitationToken, teamId, email: email.trim().toLowerCase(), expiresAt };
  }

  /**
   * Joins with an invitation meant for the caller's email; each invitation works once. The member tuple is committed
   * before the invitation is used up: a failure in between leaves the invitation to retry with (the tuple write is
   * idempotent), never a used invitation and no membership. Once used, joining with it again is a 404 and changes nothing.
   */
  async join(userId: string, invitationToken: string) {
    const { teams, users, relations } = this.deps;
    const hash = hashOf(invitationToken);
    const inv = await teams.findInvitation(hash);
    if (!inv) throw new AppError('NOT_FOUND', 'No such invitation (it may have been used already)');
    if (inv.expiresAt.getTime() <= Date.now()) throw new AppError('FORBIDDEN', 'The invitation has expired');
    const user = await users.findById(userId);
    if (user?.email !== inv.email) throw new AppError('FORBIDDEN', 'The invitation was sent to another email address');
    const { revision } = await relations.create({ subject: me(userId), relation: 'member', resource: teamObject(inv.teamId) });
    // Of two joins racing with one token (only its addressee can: the emails are the same), both wrote the same
    // tuple and one uses the invitation up; the other is told it was used, as if it came second.
    if (!(await teams.deleteInvitation(hash))) throw new AppError('NOT_FOUND', 'No such invitation (it may have been used already)');
    const team = await teams.findById(inv.teamId);
    return { team: team ? teamView(team) : { _id: inv.teamId, name: null, parentTeam: null }, roles: ['member'], revision };
  }

  async members(userId: string, teamId: string, skip: number, limit: number) {
    await this.allowed(userId, 'viewMembers', teamId);
    // The team's user tuples in subject order, streamed: a user's roles are adjacent, so the page and the count of
    // distinct members need only the page itself in memory, however large the team.
    const page = new Map<string, string[]>();
    let count = 0;
    let last = '';
    for await (const batch of this.deps.store.tuplesMatching({ resource: teamObject(teamId), subjectType: 'User' }, 1000, { bySubject: true })) {
      for (const t of batch) {
        if (t.subject !== last) {
          count++;
          last = t.subject;
        }
        if (count > skip && count <= skip + limit) {
          const id = t.subject.slice('User:'.length);
          page.set(id, [...(page.get(id) ?? []), t.relation].sort());
        }
      }
    }
    const ids = [...page.keys()];
    const emails = new Map((await this.deps.users.findByIds(ids)).map((u) => [u._id, u.email]));
    return { members: ids.map((id) => ({ userId: id, email: emails.get(id) ?? null, roles: page.get(id)! })), count };
  }
}
