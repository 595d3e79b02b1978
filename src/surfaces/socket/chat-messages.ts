// The realtime socket's chat messages (DESIGN.md 6.1): join and leave a room, send, typing and read; `id` is echoed on errors.
import { z } from 'zod';

const room = z.string().min(1).max(200);
const id = z.string().min(1).max(100).optional();

export const chatMessages = [
  z.strictObject({ type: z.literal('join'), room, id }),
  z.strictObject({ type: z.literal('leave'), room, id }),
  // The text is bounded by the route's limits (chat.maxMessageBytes), as over REST.
  z.strictObject({ type: z.literal('send'), room, message: z.string(), id }),
  z.strictObject({ type: z.literal('typing'), room, id }),
  z.strictObject({ type: z.literal('read'), room, messageId: z.string().min(1).max(200), id }),
] as const;

export type ChatMessage = z.infer<(typeof chatMessages)[number]>;
export const CHAT_TYPES: ReadonlySet<string> = new Set(chatMessages.map((m) => m.shape.type.value));
export const isChatMessage = (m: { type: string }): m is ChatMessage => CHAT_TYPES.has(m.type);
