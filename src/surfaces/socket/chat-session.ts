// One socket's chat: the rooms it joined (bounded), events of those rooms, and `left` when the decision watch reports
// that the user lost read on one (a removed member, or one removed from the team that holds the room).
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { ChatConfig } from '../../services/config/chat-config.js';
import type { ChatEvent, ChatEvents, RoomListener } from '../../services/chat/events.js';
import { roomObject } from '../../services/chat/rooms.js';
import type { ClientPrincipal } from '../../services/client-auth.js';
import type { DecisionWatch } from '../../services/authorization/decision-watch.js';
import type { Caller, Pipeline } from '../pipeline.js';
import type { ChatMessage } from './chat-messages.js';
import type { Connection } from './connection.js';
import { socketError } from './errors.js';

/** What the realtime socket needs of the chat module. */
export interface ChatSockets {
  events: ChatEvents;
  watch: DecisionWatch;
  config: () => ChatConfig;
}

const ROOM_ROUTE = 'get_chat_rooms_roomid';
const SEND_ROUTE = 'post_chat_messages';

export class ChatSession implements RoomListener {
  readonly key = randomUUID();
  /** Joined rooms and how to stop watching each; a room being joined holds its place (so the bound holds). */
  private readonly joined = new Map<string, (() => void) | null>();

  constructor(private readonly chat: ChatSockets, private readonly pipeline: Pipeline, private readonly conn: Connection,
    private readonly caller: Caller & { user: ClientPrincipal }) {}

  deliver(event: ChatEvent): void {
    this.conn.send(event);
  }

  end(): void {
    for (const room of [...this.joined.keys()]) this.drop(room);
  }

  async handle(msg: ChatMessage): Promise<void> {
    try {
      if (msg.type === 'join') return await this.join(msg.room);
      if (msg.type === 'send') return await this.send(msg.room, msg.message);
      if (!this.joined.get(msg.room)) throw new AppError('FORBIDDEN', `Join room ${msg.room} first`);
      if (msg.type === 'leave') {
        this.drop(msg.room);
        return this.conn.send({ type: 'left', room: msg.room, reason: 'left' });
      }
      if (!this.chat.config().relayTypingAndRead) return;
      const userId = this.caller.user.userId;
      const event: ChatEvent = msg.type === 'typing'
        ? { type: 'typing', room: msg.room, userId }
        : { type: 'read', room: msg.room, messageId: msg.messageId, userId };
      await this.chat.events.emit(event, this.key); // not echoed to this socket
    } catch (e) {
      this.conn.send(socketError(this.pipeline.neutral, e, `socket ${msg.type}`, { id: msg.id, room: msg.room }).message);
    }
  }

  private async join(room: string): Promise<void> {
    if (this.joined.has(room)) {
      if (this.joined.get(room)) this.conn.send({ type: 'joined', room });
      return;
    }
    const max = this.chat.config().maxRoomsPerSocket;
    if (this.joined.size >= max) throw new AppError('SUBSCRIPTION_LIMIT', `A socket joins at most ${max} rooms (config chat.maxRoomsPerSocket); leave one first`);
    this.joined.set(room, null);
    try {
      // Read access through the route, as over REST: validated, charged, and decided by the index.
      await this.pipeline.call('client', ROOM_ROUTE, { params: { roomId: room } }, this.caller);
    } catch (e) {
      this.joined.delete(room);
      if (e instanceof AppError && e.code === 'NOT_FOUND') throw new AppError('FORBIDDEN', `You may not read room ${room}`);
      throw e;
    }
    if (this.conn.closed) return void this.joined.delete(room);
    // Listening first, then the watch: its first round asks once more, so a removal racing the join still ends in `left`.
    this.chat.events.join(room, this);
    const stop = this.chat.watch.add({
      subject: `User:${this.caller.user.userId}`,
      action: 'read',
      resource: roomObject(room),
      allowed: true,
      notify: (d) => {
        if (!d.allowed && this.joined.has(room)) this.revoked(room);
      },
    });
    this.joined.set(room, stop);
    this.conn.send({ type: 'joined', room });
  }

  private revoked(room: string): void {
    this.drop(room);
    this.conn.send({ type: 'left', room, reason: 'access revoked' });
  }

  private drop(room: string): void {
    const stop = this.joined.get(room);
    this.joined.delete(room);
    this.chat.events.leave(room, this);
    stop?.();
  }

  /** Sent through the send route (charged as POST /chat/messages); a joined socket gets the `message` event as the room does. */
  private async send(room: string, message: string): Promise<void> {
    const reply = await this.pipeline.call('client', SEND_ROUTE, { body: { roomId: room, message } }, this.caller);
    if (!this.joined.get(room)) this.conn.send({ type: 'message', room, message: reply.body });
  }
}
