// The `communications` module's config: email, push and sms providers and how the send queue retries (DESIGN.md §6.1).
import { z } from 'zod';

/** Shown by GET /config in place of a secret that is set (the value itself never leaves the service). */
export const MASKED = '********';

export const communicationsConfig = z.strictObject({
  email: z.strictObject({
    /** store: every message is kept in the outbox (GET /communications/outbox), nothing leaves the machine; smtp: sent. */
    provider: z.enum(['store', 'smtp']).default('store'),
    /** The sender of messages that name none: a mail header, so a line break in it (a header of its own) is refused. */
    from: z.string().min(3).max(320).regex(/^[^\r\n]*$/, 'may not contain a line break (CR or LF): it goes into a message header').default('no-reply@localhost'),
    smtp: z.strictObject({
      host: z.string().min(1).max(255).default('127.0.0.1'),
      port: z.number().int().min(1).max(65_535).default(587),
      /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
      secure: z.boolean().default(false),
      auth: z.strictObject({ user: z.string().min(1).max(320), pass: z.string().max(1024) }).optional(),
      /** Give up on a silent server after this long (the job is retried). */
      timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    }).prefault({}),
  }).prefault({}),
  pushNotifications: z.strictObject({
    /** store: kept in the outbox with the devices it was meant for; the user's notification is stored whatever the provider. */
    provider: z.enum(['store']).default('store'),
    /** Device tokens kept per user; registering one more drops the least recently registered. */
    maxTokensPerUser: z.number().int().min(1).max(100).default(10),
  }).prefault({}),
  sms: z.strictObject({
    provider: z.enum(['store']).default('store'),
    from: z.string().min(1).max(32).default('authz'),
  }).prefault({}),
  orchestration: z.strictObject({
    /** Tries per message before it goes to the dead-letter list. */
    attempts: z.number().int().min(1).max(50).default(5),
    /** Exponential backoff: the n-th retry waits delayMs * 2^(n-1). */
    backoff: z.strictObject({ delayMs: z.number().int().min(0).max(3_600_000).default(1000) }).prefault({}),
    /** Messages sent at once by each process. */
    concurrency: z.number().int().min(1).max(100).default(5),
    /** Completed jobs kept in Redis (their record stays in MongoDB's outbox). */
    keepCompleted: z.number().int().min(0).max(100_000).default(1000),
    /** The dead-letter list's bound: the oldest failed jobs beyond it are dropped. */
    deadLetterMax: z.number().int().min(1).max(100_000).default(1000),
  }).prefault({}),
});

export type CommunicationsConfig = z.infer<typeof communicationsConfig>;

/** The module's value as operators may see it: the SMTP password masked. */
export function maskCommunications(value: CommunicationsConfig): CommunicationsConfig {
  const auth = value.email.smtp.auth;
  if (!auth) return value;
  return { ...value, email: { ...value.email, smtp: { ...value.email.smtp, auth: { ...auth, pass: auth.pass ? MASKED : '' } } } };
}

/**
 * A PATCH that sends the mask back (a form filled from GET /config) keeps the stored password instead of storing the
 * mask; `stored` is the module's stored overrides.
 */
export function keepMaskedSecret(patch: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const pass = (v: unknown) => ((v as { email?: { smtp?: { auth?: { pass?: unknown } } } } | undefined)?.email?.smtp?.auth?.pass);
  if (pass(patch) !== MASKED) return patch;
  const email = patch.email as { smtp: { auth: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  const kept = pass(stored);
  const auth = { ...email.smtp.auth };
  if (typeof kept === 'string') auth.pass = kept;
  else delete auth.pass;
  return { ...patch, email: { ...email, smtp: { ...email.smtp, auth } } };
}
