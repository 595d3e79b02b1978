// Contract of CommunicationStores: device tokens bounded per user, notifications once each, the outbox, pending sends.
import type { CommunicationStores, DeviceTokenRecord, NotificationRecord, OutboxRecord, PendingSendRecord } from '../../src/stores/ports/communications.js';
import { instants, withStore, type Make } from './harness.js';

const at = instants(8);
const device = (id: string, userId: string, i: number): DeviceTokenRecord => ({ _id: id, userId, platform: 'ios', createdAt: at[i]!, updatedAt: at[i]! });
const note = (id: string, userId: string, i: number, read = false): NotificationRecord => ({ _id: id, userId, title: `t ${id}`, body: 'b', read, createdAt: at[i]! });
const sent = (id: string, channel: OutboxRecord['channel'], i: number): OutboxRecord => ({ _id: id, channel, provider: 'log', to: ['a@example.com'], body: 'b', attempts: 1,
  sentAt: at[i]! });
const send = (id: string, i: number, dead = false): PendingSendRecord => ({ _id: id, channel: 'email', request: { to: 'a@example.com' }, createdAt: at[i]!, dead });
const ids = (xs: Array<{ _id: string }>) => xs.map((x) => x._id);

export function communicationsContract(make: Make<CommunicationStores>) {
  const t = withStore(make);
  describe('CommunicationStores', () => {
    it("keeps a user's newest device tokens up to the bound; a token moves to its newest user", t(async ({ store }) => {
      await store.ensureIndexes();
      const { tokens } = store;
      for (const [i, id] of ['d1', 'd2', 'd3'].entries()) await tokens.register(device(id, 'u1', i), 2);
      expect(ids(await tokens.ofUser('u1'))).toEqual(['d3', 'd2']);
      // Registered again, it keeps its creation time and becomes the newest.
      await tokens.register({ ...device('d2', 'u1', 4), platform: 'android' }, 2);
      expect(await tokens.ofUser('u1')).toEqual([{ ...device('d2', 'u1', 4), platform: 'android', createdAt: at[1] }, device('d3', 'u1', 2)]);
      await tokens.register(device('d3', 'u2', 5), 2);
      expect(ids(await tokens.ofUser('u1'))).toEqual(['d2']);
      expect(ids(await tokens.ofUser('u2'))).toEqual(['d3']);
      expect(await tokens.remove('u1', 'd3')).toBe(false);
      expect(await tokens.remove('u2', 'd3')).toBe(true);
      expect(await tokens.remove('u2', 'd3')).toBe(false);
      expect(await tokens.ofUser('u2')).toEqual([]);
    }));

    it('stores a notification once, lists unread first then newest, counts, and marks read', t(async ({ store }) => {
      const { notifications: n } = store;
      await n.insert(note('n1', 'u1', 1));
      await n.insert(note('n2', 'u1', 2, true));
      await n.insert(note('n3', 'u1', 3));
      await n.insert(note('n4', 'u2', 4));
      await n.insert({ ...note('n1', 'u1', 1), title: 'again' });
      const all = await n.list('u1', { skip: 0, limit: 10, unreadOnly: false });
      expect(ids(all.notifications)).toEqual(['n3', 'n1', 'n2']);
      expect([all.count, all.unread]).toEqual([3, 2]);
      expect(all.notifications[1]).toEqual(note('n1', 'u1', 1));
      const unread = await n.list('u1', { skip: 1, limit: 10, unreadOnly: true });
      expect([ids(unread.notifications), unread.count, unread.unread]).toEqual([['n1'], 2, 2]);
      expect(await n.markRead('u1', ['n1', 'n2', 'n4', 'n1'])).toBe(1);
      expect(await n.markRead('u1', 'all')).toBe(1);
      expect(await n.markRead('u1', 'all')).toBe(0);
      expect((await n.list('u1', { skip: 0, limit: 10, unreadOnly: false })).unread).toBe(0);
      expect((await n.list('u2', { skip: 0, limit: 10, unreadOnly: false })).unread).toBe(1);
    }));

    it('records a delivery once per job, and lists the outbox newest first, by channel', t(async ({ store }) => {
      const { outbox } = store;
      expect(await outbox.has('j1')).toBe(false);
      expect(await outbox.record(sent('j1', 'email', 1))).toBe(true);
      expect(await outbox.record(sent('j1', 'sms', 5))).toBe(false);
      expect(await outbox.has('j1')).toBe(true);
      await outbox.record(sent('j2', 'push', 3));
      await outbox.record(sent('j3', 'email', 2));
      expect(await outbox.list({ skip: 0, limit: 10 })).toEqual({ messages: [sent('j2', 'push', 3), sent('j3', 'email', 2), sent('j1', 'email', 1)], count: 3 });
      const emails = await outbox.list({ channel: 'email', skip: 1, limit: 10 });
      expect([ids(emails.messages), emails.count]).toEqual([['j1'], 2]);
    }));

    it('pages live pending sends older than a time, oldest first, after a cursor', t(async ({ store }) => {
      const { pending } = store;
      for (const s of [send('s3', 2), send('s1', 1), send('s2', 1), send('s4', 3, true), send('s5', 6)]) expect(await pending.add(s)).toBe(true);
      expect(await pending.add(send('s1', 4))).toBe(false);
      const before = at[5]!;
      expect(await pending.olderThan(before, null, 10)).toEqual([send('s1', 1), send('s2', 1), send('s3', 2)]);
      expect(ids(await pending.olderThan(before, null, 2))).toEqual(['s1', 's2']);
      expect(ids(await pending.olderThan(before, { createdAt: at[1]!, _id: 's1' }, 10))).toEqual(['s2', 's3']);
      expect(ids(await pending.olderThan(before, { createdAt: at[1]!, _id: 's2' }, 10))).toEqual(['s3']);
      await pending.setDead('s4', false);
      await pending.setDead('s1', true);
      await pending.remove('s3');
      expect(ids(await pending.olderThan(before, null, 10))).toEqual(['s2', 's4']);
    }));
  });
}
