// Reply bodies of the authorization routes (admin and client), as clients receive them (JSON): documented in OpenAPI,
// checked under CHECK_REPLIES. Kept beside authorization.ts, whose routes are too many to hold them in the same file.
import { z } from 'zod';
import { edges, names, revision, time } from './reply-parts.js';

const definition = z.object({
  _id: z.string(),
  name: z.string(),
  relations: edges,
  permissions: edges,
  version: z.number().int(),
  createdAt: time,
  updatedAt: time,
}).meta({ id: 'ResourceDefinition' });
const relation = z.object({
  _id: z.string(),
  subject: z.string(),
  relation: z.string(),
  resource: z.string(),
  computedTuple: z.string(),
  subjectType: z.string(),
  subjectId: z.string(),
  resourceType: z.string(),
  resourceId: z.string(),
  createdAt: time,
  revision: z.number().int(),
}).meta({ id: 'Relation' });
const grant = z.object({ subject: z.string(), permission: z.string(), resource: z.string() });
const change = z.object({
  revision: z.number().int(),
  kind: z.enum(['relation', 'grant', 'definition']),
  op: z.enum(['create', 'delete', 'update']),
  tuple: z.string().optional(),
  definition: z.object({ name: z.string(), relations: edges.optional(), permissions: edges.optional(), version: z.number().int().optional() }).optional(),
  at: time,
}).meta({ id: 'Change' });
const accessView = z.object({
  name: z.string(),
  subject: z.string(),
  permission: z.string(),
  resourceType: z.string(),
  count: z.number().int(),
  revision: z.number().int(),
  createdAt: time,
  refreshedAt: time,
}).meta({ id: 'AccessView' });
const unknownCode = z.enum(['UNKNOWN_TYPE', 'UNKNOWN_PERMISSION']);
/** Present on a deny whose type or action the model lacks (a typo, or a name a migration removed): the deny holds. */
const checkReason = z.object({
  code: unknownCode,
  message: z.string(),
  didYouMean: z.string().optional().meta({ description: 'The nearest name the model has, when one is near' }),
}).meta({ id: 'CheckReason', description: 'Why a deny names a type or action the model does not have' });
const checkAnswer = z.object({ allowed: z.boolean(), reason: checkReason.optional() });
const decision = z.object({ action: z.string(), resource: z.string(), allowed: z.boolean(), reason: checkReason.optional(), revision: z.number().int() });

export const authorizationReplies = {
  definitionPut: z.object({ status: z.enum(['processed', 'acknowledged', 'ignored']), resourceDefinition: definition, revision: revision.optional() }),
  definitions: z.object({ resources: z.array(definition), count: z.number().int() }),
  definition,
  definitionDeleted: z.object({ deleted: definition, revision }),
  relationCreated: relation,
  relationsMany: z.object({ relations: z.array(relation), created: z.number().int(), existing: z.number().int(), revision }),
  relationsWritten: z.object({
    created: z.number().int().meta({ description: 'Creates of tuples that were not stored' }),
    existing: z.number().int().meta({ description: 'Creates of tuples stored already' }),
    deleted: z.number().int().meta({ description: 'Deletes of stored tuples' }),
    missing: z.number().int().meta({ description: 'Deletes of tuples that were not stored' }),
    revision,
  }),
  relations: z.object({
    relations: z.array(relation),
    count: z.number().int(),
    countCapped: z.boolean().meta({ description: 'true: counting every match would read too much; count is a lower bound' }),
  }),
  relation,
  relationDeleted: z.object({ deleted: relation, revision }),
  granted: z.object({ grant, created: z.boolean(), revision }),
  revoked: z.object({ deleted: grant, revision }),
  allowed: checkAnswer,
  evaluation: z.object({
    allowed: z.boolean(),
    assigned: z.boolean().optional(),
    reason: z.string().optional(),
    reasonCode: unknownCode.optional().meta({ description: 'When the type or action is unknown to the model; reason then says which' }),
    didYouMean: z.string().optional(),
    paths: z.array(z.string()).optional().meta({ description: 'The stored tuples, in order, that make the decision' }),
    subjectIndex: z.unknown().optional(),
    objectIndex: z.unknown().optional(),
  }),
  objects: z.object({ objects: names, count: z.number().int() }),
  subjects: z.object({ subjects: names, public: z.boolean(), count: z.number().int() }),
  bulkCheck: z.object({ results: z.array(checkAnswer) }),
  changes: z.object({ changes: z.array(change), next: z.number().int().meta({ description: 'Pass as `after` to read on' }) }),
  accessView,
  accessViews: z.object({ views: z.array(accessView), count: z.number().int() }),
  accessViewPage: accessView.extend({ objects: names }),
  accessViewDeleted: z.object({ deleted: z.string() }),
  decisions: z.object({ items: z.array(decision) }),
  reconstruct: z.object({ result: z.literal('ok'), revision }),
  indexStatus: z.object({
    pending: z.number().int(),
    appliedRevision: z.number().int(),
    revision: z.number().int(),
    generation: z.number().int(),
    building: z.number().int().nullable(),
  }).catchall(z.unknown()),
  roles: z.object({ roles: names }),
} as const;
