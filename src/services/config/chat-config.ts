// The `chat` module's config: how long a message may be, how many rooms a socket may join, how many participants a call may name.
import { z } from 'zod';

export const chatConfig = z.strictObject({
  /** The largest message, in UTF-8 bytes (REST and socket alike); a longer one is refused with 413. */
  maxMessageBytes: z.number().int().min(1).max(1024 * 1024).default(4096),
  /** Rooms one socket may have joined at once; one more is refused with SUBSCRIPTION_LIMIT. */
  maxRoomsPerSocket: z.number().int().min(1).max(10_000).default(100),
  /** Participants one create or invite may name. */
  maxParticipants: z.number().int().min(1).max(10_000).default(100),
  /** Whether typing and read events are relayed (they are never stored). */
  relayTypingAndRead: z.boolean().default(true),
});

export type ChatConfig = z.infer<typeof chatConfig>;
