// Scenarios the playground offers to start from (the project's own hand-written conformance cases, shortened).
import type { Scenario } from '../../../engine/scenario.js';

export const EXAMPLES: Record<string, Scenario> = {
  'folders-teams-documents': {
    name: 'A team owns a folder tree, a folder owns a document',
    source: 'hand-written',
    definitions: [
      { name: 'Document', schema: true },
      {
        name: 'Folder',
        relations: { owner: ['User', 'Team'], parent: ['Folder'] },
        permissions: { read: ['owner', 'owner->read', 'parent->read'], edit: ['owner', 'owner->edit', 'parent->edit'], delete: ['owner', 'owner->delete'] },
      },
    ],
    tuples: [
      'Team:eng#owner@Folder:specs',
      'Folder:specs#parent@Folder:api',
      'Folder:api#owner@Document:rfc',
      'User:dev#member@Team:eng',
      'User:lead#editAll@Team:eng',
      'User:boss#owner@Team:eng',
    ],
    checks: [
      { subject: 'User:dev', action: 'read', resource: 'Document:rfc', expect: true },
      { subject: 'User:dev', action: 'edit', resource: 'Document:rfc', expect: false },
      { subject: 'User:lead', action: 'edit', resource: 'Document:rfc', expect: true },
      { subject: 'User:lead', action: 'delete', resource: 'Document:rfc', expect: false },
      { subject: 'User:boss', action: 'delete', resource: 'Folder:specs', expect: true },
      { subject: 'User:boss', action: 'edit', resource: 'Document:rfc', expect: true },
      { subject: 'Team:eng', action: 'read', resource: 'Document:rfc', expect: true },
    ],
    listObjects: [{ subject: 'User:dev', action: 'read', type: 'Folder', expect: ['api', 'specs'] }],
    listSubjects: [{ action: 'edit', resource: 'Document:rfc', subjectType: 'User', expect: ['boss', 'lead'] }],
  },
  'public-pages': {
    name: "Public '*' permission: pages anyone may view, comments that inherit it",
    source: 'hand-written',
    definitions: [
      { name: 'Page', relations: { editor: ['User'] }, permissions: { view: ['*'], edit: ['editor'] } },
      { name: 'Comment', relations: { page: ['Page'] }, permissions: { view: ['page->view'], edit: ['page->edit'] } },
    ],
    tuples: ['Page:p1#page@Comment:c1'],
    invalidTuples: ['Team:t#editor@Page:p1'],
    checks: [
      { subject: 'User:anyone', action: 'view', resource: 'Page:p9', expect: true },
      { subject: 'User:anyone', action: 'view', resource: 'Comment:c1', expect: true },
      { subject: 'User:anyone', action: 'edit', resource: 'Comment:c1', expect: false },
    ],
    steps: [
      {
        op: 'add',
        tuples: ['User:ed#editor@Page:p1'],
        checks: [{ subject: 'User:ed', action: 'edit', resource: 'Comment:c1', expect: true }],
      },
    ],
  },
};
