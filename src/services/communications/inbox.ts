// What a signed-in user does with communications: register push device tokens, read and mark their own notifications.
import { AppError } from '../../errors.js';
import type { CommunicationStores, NotificationRecord, Platform } from '../../stores/ports/communications.js';

const shown = (n: NotificationRecord) => ({
  _id: n._id,
  title: n.title,
  body: n.body,
  ...(n.data ? { data: n.data } : {}),
  read: n.read,
  createdAt: n.createdAt,
});

export class Inbox {
  constructor(private readonly stores: CommunicationStores, private readonly maxTokens: () => number) {}

  async registerToken(userId: string, token: string, platform: Platform) {
    const now = new Date();
    await this.stores.tokens.register({ _id: token, userId, platform, createdAt: now, updatedAt: now }, this.maxTokens());
    return { token, platform, createdAt: now };
  }

  /** A token the user does not hold is 404, whoever holds it. */
  async removeToken(userId: string, token: string) {
    if (!(await this.stores.tokens.remove(userId, token))) throw new AppError('NOT_FOUND', 'You have no such device token');
    return { deleted: true };
  }

  async notifications(userId: string, skip: number, limit: number, unreadOnly: boolean) {
    const page = await this.stores.notifications.list(userId, { skip, limit, unreadOnly });
    return { notifications: page.notifications.map(shown), count: page.count, unread: page.unread };
  }

  async markRead(userId: string, ids: string[] | 'all') {
    return { updated: await this.stores.notifications.markRead(userId, ids) };
  }
}
