// Communications: push device tokens and notifications for signed-in users; email, push and sms sends, the outbox and
// the dead-letter list for operators. Sends go through the queue; the MCP alias `communications` covers them.
import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Inbox } from '../../services/communications/inbox.js';
import type { SendQueue } from '../../services/communications/queue.js';
import type { CommunicationStores } from '../../stores/ports/communications.js';
import { route, type Route } from '../registry.js';
import { headerText } from './fields.js';

const time = z.string().meta({ format: 'date-time' });
const page = { skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25) };
const data = z.record(z.string().max(200), z.unknown());
const idempotencyKey = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, '1 to 128 letters, digits, _ . or -')
  .meta({
    description: 'Sends with the same key to the same recipients (to, or userId) are one job (and one delivery), however often they are posted; to other recipients, another job',
  }).optional();
const recipients = <T extends z.ZodType>(one: T) => z.union([one, z.array(one).min(1).max(50)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.output<T>[]);
const phone = z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'an E.164 number such as +14155550123');

const notification = z.object({ _id: z.string(), title: z.string(), body: z.string(), data: z.record(z.string(), z.unknown()).optional(), read: z.boolean(), createdAt: time })
  .meta({ id: 'Notification' });
const enqueued = z.object({ jobId: z.string(), created: z.boolean(), state: z.string() });
const outboxRecord = z.object({
  _id: z.string(),
  channel: z.enum(['email', 'push', 'sms']),
  provider: z.string(),
  to: z.array(z.string()),
  subject: z.string().optional(),
  body: z.string(),
  html: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  userId: z.string().optional(),
  providerMessageId: z.string().optional(),
  attempts: z.number().int(),
  sentAt: time,
}).meta({ id: 'OutboxMessage' });
const deadLetter = z.object({
  jobId: z.string(),
  channel: z.string(),
  request: z.record(z.string(), z.unknown()),
  failedReason: z.string(),
  attemptsMade: z.number().int(),
  createdAt: time,
  failedAt: time.nullable(),
}).meta({ id: 'DeadLetter' });

/** What the communications routes call. */
export interface CommunicationsRouteDeps {
  inbox: Inbox;
  queue: SendQueue;
  stores: CommunicationStores;
  userExists(id: string): Promise<boolean>;
}

export function communicationsRoutes(deps: CommunicationsRouteDeps): Route[] {
  return [...inboxRoutes(deps), ...sendRoutes(deps)];
}

/** A signed-in user's push device tokens and notifications. */
function inboxRoutes({ inbox }: CommunicationsRouteDeps): Route[] {
  const user = { surface: 'client' as const, group: 'communications', auth: 'user' as const };
  return [
    route({
      ...user,
      http: { method: 'post', path: '/token', created: 'always' },
      summary: 'Register a push device token for the signed-in user',
      output: z.object({ token: z.string(), platform: z.string(), createdAt: time }),
      body: z.strictObject({ token: z.string().regex(/^[\x21-\x7e]{1,512}$/, '1 to 512 printable ASCII characters'), platform: z.enum(['ios', 'android', 'web']) }),
      handle: async ({ body, user: u }) => ({ status: 201, body: await inbox.registerToken(u!.userId, body.token, body.platform) }),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/token' },
      summary: 'Remove one of your push device tokens',
      errors: ['NOT_FOUND'],
      output: z.object({ deleted: z.literal(true) }),
      body: z.strictObject({ token: z.string().min(1).max(512) }),
      handle: async ({ body, user: u }) => ({ body: await inbox.removeToken(u!.userId, body.token) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/notifications' },
      summary: 'Your notifications, unread first, then newest first',
      output: z.object({ notifications: z.array(notification), count: z.number().int(), unread: z.number().int() }),
      query: z.strictObject({ ...page, unread: z.enum(['true', 'false']).optional().meta({ description: 'true: only unread ones' }) }),
      handle: async ({ query, user: u }) => ({ body: await inbox.notifications(u!.userId, query.skip, query.limit, query.unread === 'true') }),
    }),
    route({
      ...user,
      http: { method: 'patch', path: '/notifications' },
      summary: 'Mark your notifications read: the given ids, or all',
      output: z.object({ updated: z.number().int() }),
      body: z.strictObject({ ids: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(), all: z.literal(true).optional() })
        .refine((b) => (b.ids === undefined) !== (b.all === undefined), { message: 'give either ids or all: true' }),
      handle: async ({ body, user: u }) => ({ body: await inbox.markRead(u!.userId, body.all ? 'all' : body.ids!) }),
    }),
  ];
}

/** Sending email, push and sms through the queue, and what it delivered or gave up on (admin). */
function sendRoutes(deps: CommunicationsRouteDeps): Route[] {
  const { queue, stores } = deps;
  const admin = { surface: 'admin' as const, auth: 'admin' as const };
  const sent = (r: Awaited<ReturnType<SendQueue['enqueue']>>) => ({ status: r.created ? 201 : 200, body: r });
  return [
    route({
      ...admin,
      group: 'email',
      http: { method: 'post', path: '/communications/email', created: 'when-new', bodyLimit: '256kb' },
      output: enqueued,
      summary: 'Queue an email (retried with backoff; 200 when the idempotency key names a job already queued or sent)',
      body: z.strictObject({
        to: recipients(z.email().max(320)),
        subject: headerText(998),
        text: z.string().max(60_000).optional(),
        html: z.string().max(60_000).optional(),
        from: z.email().max(320).optional(),
        idempotencyKey,
      }).refine((b) => b.text !== undefined || b.html !== undefined, { message: 'give text, html or both' }),
      handle: async ({ body }) => {
        const { idempotencyKey: key, ...mail } = body;
        return sent(await queue.enqueue({ channel: 'email', ...mail }, key));
      },
    }),
    route({
      ...admin,
      group: 'push',
      http: { method: 'post', path: '/communications/push', created: 'when-new', bodyLimit: '64kb' },
      output: enqueued,
      errors: ['NOT_FOUND'],
      summary: "Queue a push to a user: stored as the user's notification, sent to the user's device tokens",
      body: z.strictObject({ userId: z.string().min(1).max(200), title: headerText(200), body: z.string().min(1).max(4000), data: data.optional(), idempotencyKey }),
      handle: async ({ body }) => {
        const { idempotencyKey: key, ...push } = body;
        if (!(await deps.userExists(push.userId))) throw new AppError('NOT_FOUND', 'No such user');
        return sent(await queue.enqueue({ channel: 'push', ...push }, key));
      },
    }),
    route({
      ...admin,
      group: 'sms',
      http: { method: 'post', path: '/communications/sms', created: 'when-new', bodyLimit: '64kb' },
      output: enqueued,
      summary: 'Queue a text message (retried with backoff)',
      body: z.strictObject({ to: recipients(phone), body: z.string().min(1).max(1600), idempotencyKey }),
      handle: async ({ body }) => {
        const { idempotencyKey: key, ...sms } = body;
        return sent(await queue.enqueue({ channel: 'sms', ...sms }, key));
      },
    }),
    route({
      ...admin,
      group: 'communications',
      http: { method: 'get', path: '/communications/outbox' },
      summary: 'Messages delivered, newest first (what the store provider keeps)',
      output: z.object({ messages: z.array(outboxRecord), count: z.number().int() }),
      query: z.strictObject({ ...page, channel: z.enum(['email', 'push', 'sms']).optional() }),
      handle: async ({ query }) => ({ body: await stores.outbox.list(query) }),
    }),
    route({
      ...admin,
      group: 'communications',
      http: { method: 'get', path: '/communications/dead-letters' },
      summary: 'Messages that used every attempt, newest first',
      output: z.object({ jobs: z.array(deadLetter), count: z.number().int() }),
      query: z.strictObject(page),
      handle: async ({ query }) => ({ body: await queue.deadLetters(query.skip, query.limit) }),
    }),
    route({
      ...admin,
      group: 'communications',
      http: { method: 'post', path: '/communications/dead-letters/replay' },
      summary: 'Send dead-lettered messages again with fresh attempts: the given job ids, or all',
      output: z.object({ replayed: z.array(z.string()), notFound: z.array(z.string()) }),
      body: z.strictObject({ ids: z.array(z.string().min(1).max(200)).min(1).max(1000).optional(), all: z.literal(true).optional() })
        .refine((b) => (b.ids === undefined) !== (b.all === undefined), { message: 'give either ids or all: true' }),
      handle: async ({ body }) => ({ body: await queue.replay(body.all ? 'all' : body.ids!) }),
    }),
  ];
}
