// In-memory twin of the MongoDB communication stores: device tokens, notifications, the outbox and pending sends.
import type {
  CommunicationStores,
  DeviceTokenRecord,
  DeviceTokenStore,
  NotificationRecord,
  NotificationStore,
  OutboxRecord,
  OutboxStore,
  PendingSendRecord,
  PendingSendStore,
} from '../ports/communications.js';
import { copy } from './copy.js';
import { sorter } from './mongo-order.js';

export function memoryDeviceTokenStore(): DeviceTokenStore {
  const tokens = new Map<string, DeviceTokenRecord>();
  const ofUser = (userId: string) => [...tokens.values()].filter((t) => t.userId === userId).sort(sorter({ updatedAt: -1 }));
  return {
    async register(t, max) {
      const before = tokens.get(t._id);
      tokens.set(t._id, { ...copy(t), createdAt: before?.createdAt ?? copy(t.createdAt) });
      // The oldest beyond the bound go.
      for (const extra of ofUser(t.userId).slice(max)) tokens.delete(extra._id);
    },
    async remove(userId, token) {
      if (tokens.get(token)?.userId !== userId) return false;
      return tokens.delete(token);
    },
    async ofUser(userId) {
      return copy(ofUser(userId));
    },
  };
}

export function memoryNotificationStore(): NotificationStore {
  const notes = new Map<string, NotificationRecord>();
  return {
    async insert(n) {
      if (!notes.has(n._id)) notes.set(n._id, copy(n));
    },
    async list(userId, { skip, limit, unreadOnly }) {
      const mine = [...notes.values()].filter((n) => n.userId === userId);
      const listed = mine.filter((n) => !unreadOnly || !n.read).sort(sorter({ read: 1, createdAt: -1, _id: 1 }));
      return { notifications: copy(listed.slice(skip, skip + limit)), count: listed.length, unread: mine.filter((n) => !n.read).length };
    },
    async markRead(userId, ids) {
      const wanted = ids === 'all' ? null : new Set(ids);
      let n = 0;
      for (const note of notes.values()) {
        if (note.userId !== userId || note.read || (wanted && !wanted.has(note._id))) continue;
        note.read = true;
        n++;
      }
      return n;
    },
  };
}

export function memoryOutboxStore(): OutboxStore {
  const sent = new Map<string, OutboxRecord>();
  return {
    async has(id) {
      return sent.has(id);
    },
    async record(r) {
      if (sent.has(r._id)) return false;
      sent.set(r._id, copy(r));
      return true;
    },
    async list({ channel, skip, limit }) {
      const all = [...sent.values()].filter((m) => !channel || m.channel === channel).sort(sorter({ sentAt: -1, _id: 1 }));
      return { messages: copy(all.slice(skip, skip + limit)), count: all.length };
    },
  };
}

export function memoryPendingSendStore(): PendingSendStore {
  const sends = new Map<string, PendingSendRecord>();
  return {
    async add(r) {
      if (sends.has(r._id)) return false;
      sends.set(r._id, copy(r));
      return true;
    },
    async remove(id) {
      sends.delete(id);
    },
    async setDead(id, dead) {
      const s = sends.get(id);
      if (s) s.dead = dead;
    },
    async olderThan(before, after, limit) {
      const t = (d: Date) => d.getTime();
      const past = (s: PendingSendRecord) => !after || t(s.createdAt) > t(after.createdAt) || (t(s.createdAt) === t(after.createdAt) && s._id > after._id);
      return copy([...sends.values()].filter((s) => !s.dead && t(s.createdAt) < t(before) && past(s))
        .sort(sorter({ createdAt: 1, _id: 1 })).slice(0, limit));
    },
  };
}

export const memoryCommunicationStores = (): CommunicationStores => ({
  tokens: memoryDeviceTokenStore(),
  notifications: memoryNotificationStore(),
  outbox: memoryOutboxStore(),
  pending: memoryPendingSendStore(),
  ensureIndexes: async () => undefined,
});
