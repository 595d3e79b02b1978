// Chat events to the sockets that joined a room, on every process: delivered here at once, and to the others over a channel.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { ChatChannel } from '../../stores/ports/chat-channel.js';
import type { MessageRecord } from '../../stores/ports/chat.js';

export type ChatEvent =
  | { type: 'message' | 'messageEdited'; room: string; message: MessageRecord }
  | { type: 'messageDeleted'; room: string; messageId: string }
  | { type: 'typing'; room: string; userId: string }
  | { type: 'read'; room: string; messageId: string; userId: string };

/** A joined socket: `deliver` sends the event on (the Connection bounds what it queues). */
export interface RoomListener {
  readonly key: string;
  deliver(event: ChatEvent): void;
}

interface Envelope {
  origin: string;
  skip?: string;
  event: ChatEvent;
}

export class ChatEvents {
  private readonly id = randomUUID();
  private readonly rooms = new Map<string, Set<RoomListener>>();
  private channel: ChatChannel | null = null;

  constructor(private readonly log: Logger) {}

  /** The channel is built by the module with `receive` as its handler. */
  attach(channel: ChatChannel): void {
    this.channel = channel;
  }

  get listeners(): number {
    let n = 0;
    for (const s of this.rooms.values()) n += s.size;
    return n;
  }

  join(room: string, l: RoomListener): void {
    let set = this.rooms.get(room);
    if (!set) this.rooms.set(room, set = new Set());
    set.add(l);
  }

  leave(room: string, l: RoomListener): void {
    const set = this.rooms.get(room);
    set?.delete(l);
    if (set?.size === 0) this.rooms.delete(room);
  }

  /**
   * Delivers here, then publishes for the other processes. A message is stored before it is announced, so a failed
   * publish loses no message, only the live event elsewhere (logged; clients read the history).
   */
  async emit(event: ChatEvent, skip?: string): Promise<void> {
    this.deliver(event, skip);
    if (!this.channel) return;
    try {
      await this.channel.publish(JSON.stringify({ origin: this.id, skip, event } satisfies Envelope));
    } catch (e) {
      this.log.warn({ err: (e as Error).message, room: event.room }, 'chat event not published to the other processes');
    }
  }

  /** A message from the channel: the other processes' events (this process's own were delivered already). */
  receive(raw: string): void {
    let env: Envelope;
    try {
      env = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (env.origin === this.id || !env.event || typeof env.event.room !== 'string') return;
    this.deliver(env.event, env.skip);
  }

  private deliver(event: ChatEvent, skip?: string): void {
    const set = this.rooms.get(event.room);
    if (!set) return;
    for (const l of set) if (l.key !== skip) l.deliver(event);
  }
}
