// Chat rooms: the creator (or the scope team) owns one, participants are members through tuples, and every read and
// change is decided by the index; a room the caller may not read is 404.
import { randomUUID } from 'node:crypto';
import { parseObject } from '../../engine/ids.js';
import { AppError } from '../../errors.js';
import type { ChatStore, RoomRecord } from '../../stores/ports/chat.js';
import type { UserStore } from '../../stores/ports/users.js';
import type { Checks, ReadOptions } from '../authorization/checks.js';
import type { Relations } from '../authorization/relations.js';
import { ROOM_TYPE } from './definition.js';

export const roomObject = (id: string) => `${ROOM_TYPE}:${id}`;
const me = (userId: string) => `User:${userId}`;
/** A participant is a user id, or `Team:<id>` (the team's readers are members: `member->read`). */
const isTeam = (p: string) => p.startsWith('Team:');
/** `User:<id>`, as tuples name users, is taken for the bare id rooms keep. */
const participant = (p: string) => (p.startsWith('User:') ? p.slice('User:'.length) : p);
const memberTuple = (p: string, roomId: string) => ({ subject: isTeam(p) ? p : me(p), relation: 'member', resource: roomObject(roomId) });

export interface RoomsDeps {
  store: ChatStore;
  users: UserStore;
  relations: Relations;
  checks: Checks;
  maxParticipants: () => number;
}

export const roomView = (r: RoomRecord) => ({
  _id: r._id,
  name: r.name,
  participants: r.participants,
  createdBy: r.createdBy,
  scope: r.scope,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class Rooms {
  constructor(private readonly deps: RoomsDeps) {}

  /** The room, when the caller may read it; 404 otherwise (existence is not leaked). */
  async readable(userId: string, roomId: string): Promise<RoomRecord> {
    if (!(await this.deps.checks.can(me(userId), 'read', roomObject(roomId)))) throw notFound(roomId);
    const room = await this.deps.store.findRoom(roomId);
    if (!room) throw notFound(roomId);
    return room;
  }

  /** The room, when the caller may do `action` on it: 404 when it may not even read it, 403 when it may read but not that. */
  async allowed(userId: string, roomId: string, action: 'write' | 'delete' | 'manage'): Promise<RoomRecord> {
    const room = await this.readable(userId, roomId);
    if (!(await this.deps.checks.can(me(userId), action, roomObject(roomId)))) {
      throw new AppError('FORBIDDEN', `You may read room ${roomId} but not ${action} it`);
    }
    return room;
  }

  /** Whether the caller may `action` the room (no error; the socket's message deletion asks). */
  can(userId: string, roomId: string, action: string): Promise<boolean> {
    return this.deps.checks.can(me(userId), action, roomObject(roomId));
  }

  async create(userId: string, input: { name: string; participants: string[] }, scope?: string) {
    const owner = scope === undefined ? me(userId) : await this.actor(userId, scope);
    const participants = await this.known(userId, input.participants.map(participant).filter((p) => p !== userId || scope !== undefined));
    const now = new Date().toISOString();
    const room: RoomRecord = {
      _id: randomUUID(),
      name: input.name,
      participants: scope === undefined ? [userId, ...participants] : participants,
      createdBy: userId,
      scope: scope ?? null,
      createdAt: now,
      updatedAt: now,
    };
    // The owner tuple first: a crash in between leaves a tuple on a missing room (harmless), never a room nobody owns.
    await this.deps.relations.create({ subject: owner, relation: 'owner', resource: roomObject(room._id) });
    await this.deps.store.insertRoom(room);
    await this.addMembers(room._id, participants);
    return roomView(room);
  }

  async get(userId: string, roomId: string) {
    return roomView(await this.readable(userId, roomId));
  }

  /** The rooms the caller (or the scope) may read, from the index, paged; `read` says how fresh (one wait for both checks). */
  async list(userId: string, skip: number, limit: number, scope?: string, read: ReadOptions = {}) {
    await this.deps.checks.settle(read);
    const subject = scope === undefined ? me(userId) : await this.actor(userId, scope, 'read');
    const page = await this.deps.checks.listObjects(subject, 'read', ROOM_TYPE, skip, limit);
    const ids = page.objects.map((o) => o.slice(ROOM_TYPE.length + 1));
    const byId = new Map((await this.deps.store.findRooms(ids)).map((r) => [r._id, r]));
    return { rooms: ids.flatMap((id) => (byId.has(id) ? [roomView(byId.get(id)!)] : [])), count: page.count };
  }

  /** Adds participants (needs manage: the owner). */
  async invite(userId: string, roomId: string, userIds: string[]) {
    await this.allowed(userId, roomId, 'manage');
    const added = await this.known(userId, userIds);
    await this.addMembers(roomId, added);
    return this.changed(roomId, added, []);
  }

  /** Removes a participant: the owner may remove anyone, a member itself (leaving). Its sockets get `left` within a second. */
  async removeParticipant(userId: string, roomId: string, named: string) {
    const target = participant(named);
    if (target === userId) await this.readable(userId, roomId);
    else await this.allowed(userId, roomId, 'manage');
    await this.deps.relations.removeMany([memberTuple(target, roomId)], []);
    // Answered once the index has it: a read right after the answer is refused.
    await this.deps.checks.settle({ consistency: 'at_least_as_fresh' });
    return this.changed(roomId, [], [target]);
  }

  /** Deletes the room (needs delete), its messages and its tuples, owners last (a failure half-way can be retried). */
  async remove(userId: string, roomId: string, deleteMessages: (roomId: string) => Promise<number>) {
    await this.allowed(userId, roomId, 'delete');
    const messages = await deleteMessages(roomId);
    await this.deps.relations.removeAllOn(roomObject(roomId));
    await this.deps.store.deleteRoom(roomId);
    return { deleted: true as const, _id: roomId, messages };
  }

  private async changed(roomId: string, add: string[], remove: string[]) {
    const room = await this.deps.store.changeParticipants(roomId, add, remove);
    if (!room) throw notFound(roomId);
    return roomView(room);
  }

  private async addMembers(roomId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    const { revision } = await this.deps.relations.addMany(userIds.map((u) => memberTuple(u, roomId)));
    // Members may read the room as soon as the answer arrives.
    await this.deps.checks.settle({ revision });
  }

  /**
   * Participants are existing users, or teams the caller may read (a team need not have a record: tuples may name it);
   * others are refused by name, and at most maxParticipants per call.
   */
  private async known(callerId: string, participants: string[]): Promise<string[]> {
    const unique = [...new Set(participants.map(participant))];
    const max = this.deps.maxParticipants();
    if (unique.length > max) throw new AppError('VALIDATION_FAILED', `At most ${max} participants per call (config chat.maxParticipants)`, [{ path: 'body.participants' }]);
    const teams = unique.filter(isTeam);
    const found = new Set((await this.deps.users.findByIds(unique.filter((p) => !isTeam(p)))).map((u) => u._id));
    for (const t of teams) if (parseObject(t) && (await this.deps.checks.can(me(callerId), 'read', t))) found.add(t);
    const unknown = unique.filter((u) => !found.has(u));
    if (unknown.length) {
      throw new AppError('VALIDATION_FAILED', `No such participant: ${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ' …' : ''}`,
        unknown.map((u) => ({ path: 'body.participants', message: isTeam(u) ? `no team ${u} you may read` : `no user ${u}` })));
    }
    return unique;
  }

  /** A scope team the caller acts for: creating needs edit on it, listing needs read (else 403). */
  private async actor(userId: string, scope: string, needed = 'edit'): Promise<string> {
    if (!(await this.deps.checks.can(me(userId), needed, scope))) throw new AppError('FORBIDDEN', `You need ${needed} on the scope ${scope}`);
    return scope;
  }
}

const notFound = (roomId: string) => new AppError('NOT_FOUND', `No chat room ${roomId}`);
