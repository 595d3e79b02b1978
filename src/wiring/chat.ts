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
import type { Stores } from '../stores/ports/stores.js';
import { chatRoutes } from '../surfaces/routes/chat.js';
import type { ChatSockets } from '../surfaces/socket/chat-session.js';
import type { Module } from './module.js';

/** How often registering the ChatRoom definition is tried again after it failed at start. */
const REGISTER_RETRY_MS = 5000;

export function chatModule(stores: Stores, authz: { definitions: Definitions; relations: Relations; checks: Checks; watch: DecisionWatch }, settings: Settings, log: Logger) {
  const config = () => settings.get('chat');
  const events = new ChatEvents(log);
  const channel = stores.chatChannel((m) => events.receive(m));
  events.attach(channel);
  const rooms = new Rooms({ store: stores.chat, users: stores.users, relations: authz.relations, checks: authz.checks, maxParticipants: () => config().maxParticipants });
  const messages = new Messages({ store: stores.chat, rooms, events, maxMessageBytes: () => config().maxMessageBytes });
  let retry: NodeJS.Timeout | undefined;
  let registering = false;
  const register = () =>
    registerChatRoom(authz.definitions, log)
      .then(() => true, (e: Error) => {
        log.warn({ err: e.message }, 'ChatRoom definition not registered yet; trying again');
        return false;
      });
  const module: Module = {
    name: 'chat',
    routes: chatRoutes({ rooms, messages }),
    async start() {
      await stores.chat.prepare();
      // A store that is down now (Redis takes the revision) is no reason not to start: registering is tried again.
      if (!(await register())) {
        retry = setInterval(() => {
          if (registering) return;
          registering = true;
          void register().then((done) => {
            if (done) clearInterval(retry);
          }).finally(() => {
            registering = false;
          });
        }, REGISTER_RETRY_MS).unref();
      }
      await channel.start();
    },
    stop: () => {
      clearInterval(retry);
      return channel.stop();
    },
  };
  const sockets: ChatSockets = { events, watch: authz.watch, config };
  return { module, sockets };
}
