// The chat module's client routes (DESIGN.md 6.1): rooms, their participants and messages; thin adapters over the services.
import { z } from 'zod';
import type { Messages } from '../../services/chat/messages.js';
import type { Rooms } from '../../services/chat/rooms.js';
import { route, type Route } from '../registry.js';
import { consistencyFields, objectText, readOptions } from './fields.js';

const time = z.string().meta({ format: 'date-time' });
const room = z.object({
  _id: z.string(),
  name: z.string(),
  participants: z.array(z.string()),
  createdBy: z.string(),
  scope: z.string().nullable(),
  createdAt: time,
  updatedAt: time,
}).meta({ id: 'ChatRoom' });
const message = z.object({
  _id: z.string(),
  roomId: z.string(),
  senderId: z.string(),
  message: z.string(),
  createdAt: time,
  updatedAt: time.optional(),
}).meta({ id: 'ChatMessage' });
export const chatReplies = {
  room,
  rooms: z.object({ rooms: z.array(room), count: z.number().int() }),
  roomDeleted: z.object({ deleted: z.literal(true), _id: z.string(), messages: z.number().int() }),
  message,
  messages: z.object({ messages: z.array(message), count: z.number().int() }),
  messageDeleted: z.object({ deleted: z.literal(true), _id: z.string() }),
};

const page = { skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25) };
const id = z.string().min(1).max(200);
const userIds = z.array(id).max(10_000);
const text = z.string().min(1);
const scope = objectText.refine((s) => s.startsWith('Team:'), { message: 'a scope is a team: Team:<id>' }).optional();

const user = { surface: 'client' as const, group: 'chat', auth: 'user' as const };

export function chatRoutes(deps: { rooms: Rooms; messages: Messages }): Route[] {
  const { rooms, messages } = deps;
  return [
    route({
      ...user,
      http: { method: 'post', path: '/chat/rooms', created: 'always' },
      output: room,
      errors: ['FORBIDDEN'],
      summary: 'Create a chat room: you (or the scope team) own it, participants become members',
      query: z.strictObject({ scope }),
      body: z.strictObject({ name: z.string().min(1).max(200), participants: userIds.default([]) }),
      handle: async ({ query, body, user: u }) => ({ status: 201, body: await rooms.create(u!.userId, body, query.scope) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/chat/rooms' },
      output: chatReplies.rooms,
      errors: ['FORBIDDEN'],
      summary: 'The chat rooms you (or the scope) may read, from the index, paged; consistency=at_least_as_fresh&revision=N sees every write up to N',
      query: z.strictObject({ ...page, scope, ...consistencyFields }),
      handle: async ({ query, user: u }) => ({ body: await rooms.list(u!.userId, query.skip, query.limit, query.scope, readOptions(query)) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/chat/rooms/:roomId' },
      output: room,
      errors: ['NOT_FOUND'],
      summary: 'One chat room you may read (404 otherwise)',
      params: z.strictObject({ roomId: id }),
      handle: async ({ params, user: u }) => ({ body: await rooms.get(u!.userId, params.roomId) }),
    }),
    route({
      ...user,
      http: { method: 'post', path: '/chat/rooms/:roomId/participants' },
      output: room,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Invite users to a chat room (the owner)',
      params: z.strictObject({ roomId: id }),
      body: z.strictObject({ participants: userIds.min(1) }),
      handle: async ({ params, body, user: u }) => ({ body: await rooms.invite(u!.userId, params.roomId, body.participants) }),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/chat/rooms/:roomId/participants/:userId' },
      output: room,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Remove a participant (the owner; or yourself, to leave); its sockets get `left`',
      params: z.strictObject({ roomId: id, userId: id }),
      handle: async ({ params, user: u }) => ({ body: await rooms.removeParticipant(u!.userId, params.roomId, params.userId) }),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/chat/rooms/:roomId' },
      output: chatReplies.roomDeleted,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Delete a chat room, its messages and its tuples (the owner)',
      params: z.strictObject({ roomId: id }),
      handle: async ({ params, user: u }) => ({ body: await rooms.remove(u!.userId, params.roomId, (r) => messages.removeAllIn(r)) }),
    }),
    ...messageRoutes(messages),
  ];
}

/** Messages: send, list, edit, delete. */
function messageRoutes(messages: Messages): Route[] {
  return [
    route({
      ...user,
      http: { method: 'post', path: '/chat/messages', created: 'always' },
      output: message,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Send a message to a room you may write (also `{type:"send"}` on the realtime socket)',
      body: z.strictObject({ roomId: id, message: text }),
      handle: async ({ body, user: u }) => ({ status: 201, body: await messages.send(u!.userId, body.roomId, body.message) }),
    }),
    route({
      ...user,
      http: { method: 'get', path: '/chat/messages' },
      output: chatReplies.messages,
      errors: ['NOT_FOUND'],
      summary: 'Messages of a room you may read, newest first, paged (404 otherwise)',
      query: z.strictObject({ roomId: id, ...page }),
      handle: async ({ query, user: u }) => ({ body: await messages.list(u!.userId, query.roomId, query.skip, query.limit) }),
    }),
    route({
      ...user,
      http: { method: 'patch', path: '/chat/messages/:messageId' },
      output: message,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Edit your own message',
      params: z.strictObject({ messageId: id }),
      body: z.strictObject({ message: text }),
      handle: async ({ params, body, user: u }) => ({ body: await messages.edit(u!.userId, params.messageId, body.message) }),
    }),
    route({
      ...user,
      http: { method: 'delete', path: '/chat/messages/:messageId' },
      output: chatReplies.messageDeleted,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: "Delete a message (its author, or the room's owner)",
      params: z.strictObject({ messageId: id }),
      handle: async ({ params, user: u }) => ({ body: await messages.remove(u!.userId, params.messageId) }),
    }),
  ];
}
