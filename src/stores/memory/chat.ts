// In-memory twin of the MongoDB chat store: rooms and their messages, newest first by id.
import type { ChatStore, MessageRecord, RoomRecord } from '../ports/chat.js';
import { copy, insertNew } from './copy.js';

const newestFirst = (a: MessageRecord, b: MessageRecord) => (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

export function memoryChatStore(): ChatStore {
  const rooms = new Map<string, RoomRecord>();
  const messages = new Map<string, MessageRecord>();
  return {
    async prepare() {/* nothing to index */},
    async insertRoom(room) {
      insertNew(rooms, room);
    },
    async findRoom(id) {
      return copy(rooms.get(id) ?? null);
    },
    async findRooms(ids) {
      return [...new Set(ids)].flatMap((id) => (rooms.has(id) ? [copy(rooms.get(id)!)] : []));
    },
    async changeParticipants(id, add, remove) {
      const room = rooms.get(id);
      if (!room) return null;
      const updatedAt = new Date().toISOString();
      // As `$addToSet` with `$each`, then `$pullAll`: added once each, in order, then the removed ones taken out.
      if (add.length) {
        for (const p of add) if (!room.participants.includes(p)) room.participants.push(p);
        room.updatedAt = updatedAt;
      }
      if (remove.length) {
        room.participants = room.participants.filter((p) => !remove.includes(p));
        room.updatedAt = updatedAt;
      }
      return copy(room);
    },
    async deleteRoom(id) {
      return rooms.delete(id);
    },
    async insertMessage(m) {
      insertNew(messages, m);
    },
    async findMessage(id) {
      return copy(messages.get(id) ?? null);
    },
    async messages(roomId, skip, limit) {
      const all = [...messages.values()].filter((m) => m.roomId === roomId).sort(newestFirst);
      return { messages: copy(all.slice(skip, skip + limit)), count: all.length };
    },
    async editMessage(id, message, updatedAt) {
      const m = messages.get(id);
      if (!m) return null;
      Object.assign(m, { message, updatedAt });
      return copy(m);
    },
    async deleteMessage(id) {
      return messages.delete(id);
    },
    async deleteRoomMessages(roomId) {
      let n = 0;
      for (const [id, m] of messages) {
        if (m.roomId === roomId) {
          messages.delete(id);
          n++;
        }
      }
      return n;
    },
  };
}
