// What communications keep in MongoDB: users' push device tokens, their notifications, the sends not yet delivered and the outbox of sent messages.
export type Channel = 'email' | 'push' | 'sms';
export type Platform = 'ios' | 'android' | 'web';

export interface DeviceTokenRecord {
  _id: string;
  userId: string;
  platform: Platform;
  createdAt: Date;
  updatedAt: Date;
}
export interface NotificationRecord {
  _id: string;
  userId: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
  read: boolean;
  createdAt: Date;
}
/** One delivered message, keyed by its job id: what the store provider keeps, and the ledger that makes a retry a no-op. */
export interface OutboxRecord {
  _id: string;
  channel: Channel;
  provider: string;
  to: string[];
  subject?: string;
  body: string;
  html?: string;
  data?: Record<string, unknown>;
  userId?: string;
  providerMessageId?: string;
  attempts: number;
  sentAt: Date;
}

export interface DeviceTokenStore {
  /** Registers the token for the user (a token is one device: it moves to the newest user), keeping at most `max` per user. */
  register(token: DeviceTokenRecord, max: number): Promise<void>;
  /** Removes the user's own token; false when the user holds no such token. */
  remove(userId: string, token: string): Promise<boolean>;
  ofUser(userId: string): Promise<DeviceTokenRecord[]>;
}

export interface NotificationStore {
  /** Stores once per id: a retried delivery does not notify twice. */
  insert(n: NotificationRecord): Promise<void>;
  /** The user's notifications, unread first then newest first. */
  list(userId: string, opts: { skip: number; limit: number; unreadOnly: boolean }): Promise<{ notifications: NotificationRecord[]; count: number; unread: number }>;
  /** Marks the user's own notifications read (the given ones, or all); how many changed. */
  markRead(userId: string, ids: string[] | 'all'): Promise<number>;
}

export interface OutboxStore {
  has(id: string): Promise<boolean>;
  /** Records a delivery once per job id; false when it was recorded already. */
  record(r: OutboxRecord): Promise<boolean>;
  list(opts: { channel?: Channel; skip: number; limit: number }): Promise<{ messages: OutboxRecord[]; count: number }>;
}

/**
 * A send acknowledged and not yet delivered, keyed by its job id. Redis may lose its last writes in a crash (its AOF is
 * written once a second), so MongoDB keeps the request until its delivery is recorded, and a job Redis lost is queued again.
 */
export interface PendingSendRecord {
  _id: string;
  channel: Channel;
  request: Record<string, unknown>;
  createdAt: Date;
  dead: boolean;
}

export interface PendingSendStore {
  /** Records the send; false when it is recorded already. */
  add(r: PendingSendRecord): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** A dead-lettered send is not queued again by the sweep; a replayed one is again. */
  setDead(id: string, dead: boolean): Promise<void>;
  /** Live sends created before `before`, oldest first, after `after` (the previous page's last one). */
  olderThan(before: Date, after: { createdAt: Date; _id: string } | null, limit: number): Promise<PendingSendRecord[]>;
}

/** The MongoDB side of communications, as the services see it. */
export interface CommunicationStores {
  tokens: DeviceTokenStore;
  notifications: NotificationStore;
  outbox: OutboxStore;
  pending: PendingSendStore;
  ensureIndexes(): Promise<void>;
}
