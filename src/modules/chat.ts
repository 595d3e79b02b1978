// The chat module: the ChatRoom definition, rooms and messages decided by the index, and their events fanned out to the
// realtime sockets of every process over a Redis channel.
import type { Logger } from '../log.js';
import type { Checks } from '../services/authorization/checks.js';
import type { DecisionWatch } from '../services/authorization/decision-watch.js';
import type { Definitions } from '../services/authorization/definitions.js';
import type { Relations } from '../services/authorization/relations.js';
import { registerChatRoom } from '../services/chat/definition.js';
import { ChatEvents } from '../services/chat/events.js';
import { Messages } from '../services/chat/messages.js';
import { Rooms } from '../services/chat/rooms.js';
import type { Settings } from '../services/config/settings.js';
import type { Stores } from '../stores/stores.js';
import { chatRoutes } from '../surfaces/routes/chat.js';
import type { ChatSockets } from '../surfaces/socket/chat-session.js';
import type { Module } from './module.js';

export function chatModule(stores: Stores, authz: { definitions: Definitions; relations: Relations; checks: Checks; watch: DecisionWatch },
  settings: Settings, log: Logger) {
  const config = () => settings.get('chat');
  const events = new ChatEvents(log);
  const channel = stores.chatChannel((m) => events.receive(m));
  events.attach(channel);
  const rooms = new Rooms({ store: stores.chat, users: stores.users, relations: authz.relations, checks: authz.checks, maxParticipants: () => config().maxParticipants });
  const messages = new Messages({ store: stores.chat, rooms, events, maxMessageBytes: () => config().maxMessageBytes });
  const module: Module = {
    name: 'chat',
    routes: chatRoutes({ rooms, messages }),
    async start() {
      await stores.chat.prepare();
      await registerChatRoom(authz.definitions, log);
      await channel.start();
    },
    stop: () => channel.stop(),
  };
  const sockets: ChatSockets = { events, watch: authz.watch, config };
  return { module, sockets };
}
