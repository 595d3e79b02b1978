// Chat messages: sent to rooms the sender may write, listed newest first from rooms the caller may read, edited by their
// author, deleted by their author or the room's owner; every change is announced to the room's sockets.
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { ChatStore, MessageRecord } from '../../stores/ports/chat.js';
import type { ChatEvents } from './events.js';
import type { Rooms } from './rooms.js';

export interface MessagesDeps {
  store: ChatStore;
  rooms: Rooms;
  events: ChatEvents;
  maxMessageBytes: () => number;
}

const PROCESS = randomBytes(3).toString('hex');
let sequence = 0;
/** 24 hex digits, milliseconds first: ids sort in the order messages were created (within a millisecond, per process). */
function messageId(): string {
  sequence = (sequence + 1) % 0x1000000;
  return Date.now().toString(16).padStart(12, '0') + PROCESS + sequence.toString(16).padStart(6, '0');
}

export class Messages {
  constructor(private readonly deps: MessagesDeps) {}

  private check(text: string): void {
    const max = this.deps.maxMessageBytes();
    if (Buffer.byteLength(text) > max) throw new AppError('PAYLOAD_TOO_LARGE', `A message holds at most ${max} bytes (config chat.maxMessageBytes)`);
  }

  async send(userId: string, roomId: string, text: string): Promise<MessageRecord> {
    this.check(text);
    // One decision on the hot path: write implies the room exists (its tuples go with it); only a refusal asks more.
    if (!(await this.deps.rooms.can(userId, roomId, 'write'))) await this.deps.rooms.allowed(userId, roomId, 'write');
    const m: MessageRecord = { _id: messageId(), roomId, senderId: userId, message: text, createdAt: new Date().toISOString() };
    await this.deps.store.insertMessage(m);
    await this.deps.events.emit({ type: 'message', room: roomId, message: m });
    return m;
  }

  async list(userId: string, roomId: string, skip: number, limit: number) {
    await this.deps.rooms.readable(userId, roomId);
    return this.deps.store.messages(roomId, skip, limit);
  }

  /** The message, when its room is readable by the caller (404 otherwise, for the message and the room alike). */
  private async load(userId: string, messageId: string): Promise<MessageRecord> {
    const m = await this.deps.store.findMessage(messageId);
    if (!m) throw notFound(messageId);
    try {
      await this.deps.rooms.readable(userId, m.roomId);
    } catch (e) {
      if (e instanceof AppError && e.code === 'NOT_FOUND') throw notFound(messageId);
      throw e;
    }
    return m;
  }

  async edit(userId: string, messageId: string, text: string): Promise<MessageRecord> {
    this.check(text);
    const m = await this.load(userId, messageId);
    if (m.senderId !== userId) throw new AppError('FORBIDDEN', 'Only its author may edit a message');
    const updated = await this.deps.store.editMessage(messageId, text, new Date().toISOString());
    if (!updated) throw notFound(messageId);
    await this.deps.events.emit({ type: 'messageEdited', room: m.roomId, message: updated });
    return updated;
  }

  async remove(userId: string, messageId: string) {
    const m = await this.load(userId, messageId);
    if (m.senderId !== userId && !(await this.deps.rooms.can(userId, m.roomId, 'delete'))) {
      throw new AppError('FORBIDDEN', "Only its author or the room's owner may delete a message");
    }
    if (!(await this.deps.store.deleteMessage(messageId))) throw notFound(messageId);
    await this.deps.events.emit({ type: 'messageDeleted', room: m.roomId, messageId });
    return { deleted: true as const, _id: messageId };
  }

  removeAllIn(roomId: string): Promise<number> {
    return this.deps.store.deleteRoomMessages(roomId);
  }
}

const notFound = (id: string) => new AppError('NOT_FOUND', `No message ${id}`);
