// The realtime socket's messages (DESIGN.md 6.1): what a client may send, validated before anything runs.
import { z } from 'zod';
import { chatMessages } from './chat-messages.js';

export const clientMessage = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('subscribe'),
    topic: z.literal('decisions'),
    id: z.string().min(1).max(100),
    // The items (and how fresh the first answers must be) are the decisions route's body, validated by the pipeline.
    items: z.unknown(),
    consistency: z.unknown().optional(),
    revision: z.unknown().optional(),
  }),
  z.strictObject({ type: z.literal('unsubscribe'), id: z.string().min(1).max(100) }),
  z.strictObject({ type: z.literal('ping') }),
  ...chatMessages,
]);
export type ClientMessage = z.infer<typeof clientMessage>;

/** Close codes besides the protocol's own (1009 for a message over the size limit). */
export const CLOSE = {
  /** The access token expired or was revoked (logout): connect again with a fresh one. */
  unauthenticated: 4001,
  /** The client did not read what was sent: its send queue reached the bound. */
  slowConsumer: 4008,
  /** The service is stopping. */
  goingAway: 1001,
} as const;
