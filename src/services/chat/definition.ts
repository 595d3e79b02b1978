// The ChatRoom resource definition, registered at module start through the Definitions service (idempotently).
import type { Definition } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Definitions } from '../authorization/definitions.js';

export const ROOM_TYPE = 'ChatRoom';

/**
 * Members are users, or teams (`member->read`: whoever may read the team, its members first), so a user removed from
 * the team that holds a room loses the room. A team that owns a room (`scope=Team:t`) lends its owners `delete` and `manage`.
 */
export const chatRoomDefinition: Definition = {
  name: ROOM_TYPE,
  relations: { owner: ['User', 'Team'], member: ['User', 'Team'] },
  permissions: {
    read: ['member', 'member->read', 'owner', 'owner->read'],
    write: ['member', 'member->read', 'owner', 'owner->read'],
    delete: ['owner', 'owner->delete'],
    /** Invite and remove participants. */
    manage: ['owner', 'owner->edit'],
  },
};

/**
 * Version 0 when missing; acknowledged when it is there unchanged. An operator who patched it (a higher version)
 * keeps the patch; a different version 0 is left as it is and logged.
 */
export async function registerChatRoom(definitions: Definitions, log: Logger): Promise<void> {
  try {
    await definitions.put(chatRoomDefinition, 0);
  } catch (e) {
    if (!(e instanceof AppError && e.code === 'VERSION_CONFLICT')) throw e;
    log.warn({ type: ROOM_TYPE }, 'the stored ChatRoom definition differs from the built one at version 0; it is kept');
  }
}
