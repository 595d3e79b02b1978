// Contract of ChatStore: rooms and their participants, messages newest first with counts, edits and deletes.
import { DuplicateKey } from '../../src/stores/ports/errors.js';
import type { ChatStore, MessageRecord, RoomRecord } from '../../src/stores/ports/chat.js';
import { withStore, type Make } from './harness.js';

const T = '2026-01-01T00:00:00.000Z';
const room = (id: string, participants = ['u1']): RoomRecord => ({ _id: id, name: `Room ${id}`, participants, createdBy: 'u1', scope: null, createdAt: T, updatedAt: T });
/** Ids sort by creation: hex milliseconds first. */
const message = (n: number, roomId = 'r1'): MessageRecord => ({ _id: `${(1_700_000_000_000 + n).toString(16)}-m${n}`, roomId, senderId: 'u1', message: `hello ${n}`,
  createdAt: T });

export function chatContract(make: Make<ChatStore>) {
  const t = withStore(make);
  describe('ChatStore', () => {
    it('inserts rooms and finds them; a taken id is DuplicateKey', t(async ({ store }) => {
      await store.prepare();
      await store.insertRoom(room('r1'));
      await store.insertRoom({ ...room('r2'), scope: 'Team:t1' });
      await expect(store.insertRoom(room('r1', ['u9']))).rejects.toBeInstanceOf(DuplicateKey);
      expect(await store.findRoom('r1')).toEqual(room('r1'));
      expect(await store.findRoom('nope')).toBeNull();
      expect((await store.findRooms(['r2', 'x', 'r1', 'r2'])).map((r) => r._id).sort()).toEqual(['r1', 'r2']);
    }));

    it('adds participants once each and removes them, stamping the change', t(async ({ store }) => {
      await store.insertRoom(room('r1', ['u1', 'u2']));
      const added = await store.changeParticipants('r1', ['u3', 'u2', 'u3', 'u4'], []);
      expect(added?.participants).toEqual(['u1', 'u2', 'u3', 'u4']);
      expect(added?.updatedAt).not.toBe(T);
      const changed = await store.changeParticipants('r1', ['u5'], ['u2', 'u5', 'u9']);
      expect(changed?.participants).toEqual(['u1', 'u3', 'u4']);
      expect((await store.findRoom('r1'))?.participants).toEqual(['u1', 'u3', 'u4']);
      expect(await store.changeParticipants('r1', [], [])).toEqual(changed);
      expect(await store.changeParticipants('nope', ['u1'], [])).toBeNull();
      expect(await store.findRoom('nope')).toBeNull();
    }));

    it("pages a room's messages newest first, with the room's count", t(async ({ store }) => {
      for (const n of [3, 1, 4, 2, 5]) await store.insertMessage(message(n));
      await store.insertMessage(message(6, 'r2'));
      await expect(store.insertMessage(message(1))).rejects.toBeInstanceOf(DuplicateKey);
      const page = await store.messages('r1', 1, 3);
      expect(page.count).toBe(5);
      expect(page.messages).toEqual([message(4), message(3), message(2)]);
      expect(await store.messages('r9', 0, 10)).toEqual({ messages: [], count: 0 });
    }));

    it('edits and deletes messages, and a room, once', t(async ({ store }) => {
      await store.insertRoom(room('r1'));
      for (const n of [1, 2, 3]) await store.insertMessage(message(n));
      await store.insertMessage(message(4, 'r2'));
      const edited = await store.editMessage(message(2)._id, 'changed', '2026-02-01T00:00:00.000Z');
      expect(edited).toEqual({ ...message(2), message: 'changed', updatedAt: '2026-02-01T00:00:00.000Z' });
      expect(await store.findMessage(message(2)._id)).toEqual(edited);
      expect(await store.editMessage('nope', 'x', T)).toBeNull();
      expect(await store.findMessage('nope')).toBeNull();
      expect(await store.deleteMessage(message(1)._id)).toBe(true);
      expect(await store.deleteMessage(message(1)._id)).toBe(false);
      expect(await store.deleteRoomMessages('r1')).toBe(2);
      expect(await store.deleteRoomMessages('r1')).toBe(0);
      expect((await store.messages('r2', 0, 10)).count).toBe(1);
      expect(await store.deleteRoom('r1')).toBe(true);
      expect(await store.deleteRoom('r1')).toBe(false);
    }));
  });
}
