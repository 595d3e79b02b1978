// Resource types the modules own, by name: a database schema may not take one (its documents would share the type's
// objects, tuples and listings with the module's).
import { ROOM_TYPE } from './chat/definition.js';
import { FILE_TYPE, PUBLIC_TYPE } from './storage/definition.js';

export const MODULE_TYPES: ReadonlyMap<string, string> = new Map([[FILE_TYPE, 'storage'], [PUBLIC_TYPE, 'storage'], [ROOM_TYPE, 'chat']]);
