// The model the read-cache tests share: folders in folders, and documents in folders owned by users or teams.
import type { TestService } from './service.js';

export const FOLDER = { name: 'Folder', relations: { parent: ['Folder'], viewer: ['User'] }, permissions: { view: ['viewer', 'parent->view'] } };
export const DOC = {
  name: 'Doc',
  relations: { folder: ['Folder'], owner: ['User', 'Team'] },
  permissions: { view: ['owner', 'owner->read', 'folder->view'] },
};

/** Defines Folder and Doc through `svc` (Team is built in). */
export async function defineFoldersAndDocs(svc: TestService): Promise<void> {
  for (const body of [FOLDER, DOC]) expect((await svc.http('POST', '/authorization/resources', { body })).status).toBe(200);
}
