// Chat rooms and messages in MongoDB, two collections of the service's own.
import type { Db } from 'mongodb';
import type { ChatStore, MessageRecord, RoomRecord } from '../ports/chat.js';
import { findByIds } from './by-ids.js';
import { neutralDuplicate } from './duplicate-key.js';

export const CHAT_COLLECTIONS = { rooms: 'chat_rooms', messages: 'chat_messages' } as const;

export function mongoChatStore(db: Db): ChatStore {
  const rooms = db.collection<RoomRecord>(CHAT_COLLECTIONS.rooms);
  const messages = db.collection<MessageRecord>(CHAT_COLLECTIONS.messages);
  return {
    async prepare() {
      await messages.createIndex({ roomId: 1, _id: -1 });
    },
    async insertRoom(room) {
      await neutralDuplicate(() => rooms.insertOne(room));
    },
    findRoom: (id) => rooms.findOne({ _id: id }),
    findRooms: (ids) => findByIds(rooms, ids),
    async changeParticipants(id, add, remove) {
      // Two updates: one update may not both add to and remove from the same field.
      const updatedAt = new Date().toISOString();
      if (add.length) await rooms.updateOne({ _id: id }, { $addToSet: { participants: { $each: add } }, $set: { updatedAt } });
      if (remove.length) await rooms.updateOne({ _id: id }, { $pullAll: { participants: remove }, $set: { updatedAt } });
      return rooms.findOne({ _id: id });
    },
    async deleteRoom(id) {
      return (await rooms.deleteOne({ _id: id })).deletedCount === 1;
    },
    async insertMessage(m) {
      await neutralDuplicate(() => messages.insertOne(m));
    },
    findMessage: (id) => messages.findOne({ _id: id }),
    async messages(roomId, skip, limit) {
      const [page, count] = await Promise.all([
        messages.find({ roomId }).sort({ _id: -1 }).skip(skip).limit(limit).toArray(),
        messages.countDocuments({ roomId }),
      ]);
      return { messages: page, count };
    },
    async editMessage(id, message, updatedAt) {
      const r = await messages.updateOne({ _id: id }, { $set: { message, updatedAt } });
      return r.matchedCount === 0 ? null : messages.findOne({ _id: id });
    },
    async deleteMessage(id) {
      return (await messages.deleteOne({ _id: id })).deletedCount === 1;
    },
    async deleteRoomMessages(roomId) {
      return (await messages.deleteMany({ roomId })).deletedCount;
    },
  };
}
