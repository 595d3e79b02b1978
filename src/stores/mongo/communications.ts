// Device tokens, notifications, pending sends and the outbox of sent messages in MongoDB (FerretDB v1 compatible: no $in over many ids).
import type { Db, Filter } from 'mongodb';
import type {
  CommunicationStores,
  DeviceTokenStore,
  NotificationRecord,
  NotificationStore,
  OutboxRecord,
  OutboxStore,
  PendingSendRecord,
  PendingSendStore,
} from '../ports/communications.js';
import { COLLECTIONS } from './connection.js';
import { nullIfDuplicate, upsertRaced } from './duplicate-key.js';

export async function communicationIndexes(db: Db): Promise<void> {
  await Promise.all([
    db.collection(COLLECTIONS.deviceTokens).createIndex({ userId: 1 }),
    db.collection(COLLECTIONS.notifications).createIndex({ userId: 1, read: 1, createdAt: -1 }),
    db.collection(COLLECTIONS.outbox).createIndex({ sentAt: -1 }),
    db.collection(COLLECTIONS.pendingSends).createIndex({ dead: 1, createdAt: 1, _id: 1 }),
  ]);
}

export function mongoDeviceTokenStore(db: Db): DeviceTokenStore {
  const col = db.collection<{ _id: string; userId: string; platform: string; createdAt: Date; updatedAt: Date }>(COLLECTIONS.deviceTokens);
  return {
    async register(t, max) {
      await upsertRaced(() =>
        col.updateOne({ _id: t._id }, { $set: { userId: t.userId, platform: t.platform, updatedAt: t.updatedAt }, $setOnInsert: { createdAt: t.createdAt } }, { upsert: true })
      );
      // The oldest beyond the bound go: a user reinstalling an app many times keeps a bounded list.
      const extra = await col.find({ userId: t.userId }).sort({ updatedAt: -1 }).skip(max).project<{ _id: string }>({ _id: 1 }).toArray();
      for (const e of extra) await col.deleteOne({ _id: e._id, userId: t.userId });
    },
    async remove(userId, token) {
      return (await col.deleteOne({ _id: token, userId })).deletedCount === 1;
    },
    ofUser: async (userId) => (await col.find({ userId }).sort({ updatedAt: -1 }).toArray()) as Awaited<ReturnType<DeviceTokenStore['ofUser']>>,
  };
}

export function mongoNotificationStore(db: Db): NotificationStore {
  const col = db.collection<NotificationRecord>(COLLECTIONS.notifications);
  return {
    async insert(n) {
      await nullIfDuplicate(() => col.insertOne(n));
    },
    async list(userId, { skip, limit, unreadOnly }) {
      const filter: Filter<NotificationRecord> = unreadOnly ? { userId, read: false } : { userId };
      const [notifications, count, unread] = await Promise.all([
        col.find(filter).sort({ read: 1, createdAt: -1, _id: 1 }).skip(skip).limit(limit).toArray(),
        col.countDocuments(filter),
        col.countDocuments({ userId, read: false }),
      ]);
      return { notifications, count, unread };
    },
    async markRead(userId, ids) {
      if (ids === 'all') return (await col.updateMany({ userId, read: false }, { $set: { read: true } })).modifiedCount;
      let n = 0;
      for (const id of new Set(ids)) n += (await col.updateOne({ _id: id, userId, read: false }, { $set: { read: true } })).modifiedCount;
      return n;
    },
  };
}

export function mongoOutboxStore(db: Db): OutboxStore {
  const col = db.collection<OutboxRecord>(COLLECTIONS.outbox);
  return {
    has: async (id) => (await col.countDocuments({ _id: id }, { limit: 1 })) > 0,
    record: async (r) => (await nullIfDuplicate(() => col.insertOne(r))) !== null,
    async list({ channel, skip, limit }) {
      const filter: Filter<OutboxRecord> = channel ? { channel } : {};
      const [messages, count] = await Promise.all([col.find(filter).sort({ sentAt: -1, _id: 1 }).skip(skip).limit(limit).toArray(), col.countDocuments(filter)]);
      return { messages, count };
    },
  };
}

export function mongoPendingSendStore(db: Db): PendingSendStore {
  const col = db.collection<PendingSendRecord>(COLLECTIONS.pendingSends);
  return {
    add: async (r) => (await nullIfDuplicate(() => col.insertOne(r))) !== null,
    async remove(id) {
      await col.deleteOne({ _id: id });
    },
    async setDead(id, dead) {
      await col.updateOne({ _id: id }, { $set: { dead } });
    },
    olderThan(before, after, limit) {
      const page: Filter<PendingSendRecord> = after
        ? { $or: [{ createdAt: { $gt: after.createdAt, $lt: before } }, { createdAt: after.createdAt, _id: { $gt: after._id } }] }
        : { createdAt: { $lt: before } };
      return col.find({ dead: false, ...page }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
    },
  };
}

/** The four stores, and their indexes (created when the communications module starts). */
export const mongoCommunicationStores = (db: Db): CommunicationStores => ({
  tokens: mongoDeviceTokenStore(db),
  notifications: mongoNotificationStore(db),
  outbox: mongoOutboxStore(db),
  pending: mongoPendingSendStore(db),
  ensureIndexes: () => communicationIndexes(db),
});
