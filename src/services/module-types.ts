// Resource types the service itself defines, by name: the built-ins and the modules'. A database schema may not take
// one (its documents would share the type's objects, tuples and listings with the module's), and replacing or deleting
// one needs its version (the module's code relies on its relations and permissions).
import { BUILTINS, type Definition } from '../engine/model.js';
import { chatRoomDefinition, ROOM_TYPE } from './chat/definition.js';
import { FILE_TYPE, fileDefinition, PUBLIC_TYPE, publicDefinition } from './storage/definition.js';

export const MODULE_TYPES: ReadonlyMap<string, string> = new Map([[FILE_TYPE, 'storage'], [PUBLIC_TYPE, 'storage'], [ROOM_TYPE, 'chat']]);

const builtin = (name: string) => BUILTINS.find((d) => d.name === name)!;

/** Each type the service defines: who relies on it and the definition it registers. */
export const SERVICE_TYPES: ReadonlyMap<string, { owner: string; definition: Definition }> = new Map([
  ['User', { owner: 'authentication', definition: builtin('User') }],
  ['Team', { owner: 'teams', definition: builtin('Team') }],
  [FILE_TYPE, { owner: 'storage', definition: fileDefinition() }],
  [PUBLIC_TYPE, { owner: 'storage', definition: publicDefinition() }],
  [ROOM_TYPE, { owner: 'chat', definition: chatRoomDefinition }],
]);
