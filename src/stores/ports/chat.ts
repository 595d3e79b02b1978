// Chat rooms and their messages (the chat module); who may read a room lives only in relation tuples.

export interface RoomRecord {
  _id: string;
  name: string;
  /** The users named as participants (the creator first, unless a team owns the room); membership itself is tuples. */
  participants: string[];
  createdBy: string;
  /** `Team:<id>` when a team owns the room, else null (the creator does). */
  scope: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageRecord {
  /** Ordered by creation time (hex milliseconds first): sorting by `_id` descending is newest first. */
  _id: string;
  roomId: string;
  senderId: string;
  message: string;
  createdAt: string;
  updatedAt?: string;
}

export interface ChatStore {
  /** Creates the indexes the queries below rely on. */
  prepare(): Promise<void>;
  insertRoom(room: RoomRecord): Promise<void>;
  findRoom(id: string): Promise<RoomRecord | null>;
  findRooms(ids: string[]): Promise<RoomRecord[]>;
  /** Adds (`add`) and removes (`remove`) participants; the room afterwards, or null when it is gone. */
  changeParticipants(id: string, add: string[], remove: string[]): Promise<RoomRecord | null>;
  deleteRoom(id: string): Promise<boolean>;
  insertMessage(m: MessageRecord): Promise<void>;
  findMessage(id: string): Promise<MessageRecord | null>;
  /** One page of a room's messages, newest first, and how many it holds. */
  messages(roomId: string, skip: number, limit: number): Promise<{ messages: MessageRecord[]; count: number }>;
  editMessage(id: string, message: string, updatedAt: string): Promise<MessageRecord | null>;
  deleteMessage(id: string): Promise<boolean>;
  deleteRoomMessages(roomId: string): Promise<number>;
}
