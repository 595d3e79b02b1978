// Reply bodies of the registry's routes, as clients receive them (JSON): documented in OpenAPI, checked under CHECK_REPLIES.
import { z } from 'zod';
import { stateGrant, stateHeader, stateTuple } from '../services/state/document.js';

const time = z.string().meta({ format: 'date-time' });
const names = z.array(z.string());
const revision = z.number().int().meta({ description: 'Read with consistency=at_least_as_fresh&revision= to see this change' });
const edges = z.record(z.string(), z.array(z.string()));

export const definition = z.object({
  _id: z.string(), name: z.string(), relations: edges, permissions: edges, version: z.number().int(), createdAt: time, updatedAt: time,
}).meta({ id: 'ResourceDefinition' });
export const relation = z.object({
  _id: z.string(), subject: z.string(), relation: z.string(), resource: z.string(), computedTuple: z.string(),
  subjectType: z.string(), subjectId: z.string(), resourceType: z.string(), resourceId: z.string(), createdAt: time, revision: z.number().int(),
}).meta({ id: 'Relation' });
const grant = z.object({ subject: z.string(), permission: z.string(), resource: z.string() });
const schema = z.object({
  _id: z.string(), name: z.string(), collectionName: z.string(), fields: z.record(z.string(), z.unknown()),
  serviceOptions: z.object({ authorization: z.object({ enabled: z.boolean() }) }), createdAt: time, updatedAt: time,
}).meta({ id: 'Schema' });
const apiToken = z.object({ id: z.string(), name: z.string(), tokenPrefix: z.string(), expiresAt: time }).meta({ id: 'ApiToken' });
const user = z.object({ _id: z.string(), email: z.string(), createdAt: time }).meta({ id: 'User' });
const team = z.object({ _id: z.string(), name: z.string().nullable(), parentTeam: z.string().nullable() }).meta({ id: 'Team' });
const tokens = z.object({ userId: z.string(), accessToken: z.string(), refreshToken: z.string() });
const doc = z.object({ _id: z.string() }).catchall(z.unknown()).meta({ id: 'Document' });
const changes = z.object({ created: names, updated: names, unchanged: names });
const counts = z.object({ created: z.number().int(), existing: z.number().int(), removed: z.number().int() });
const check = z.object({ status: z.enum(['pass', 'fail', 'warn']), durationMs: z.number(), message: z.string().optional() });

const change = z.object({
  revision: z.number().int(), kind: z.enum(['relation', 'grant', 'definition']), op: z.enum(['create', 'delete', 'update']),
  tuple: z.string().optional(),
  definition: z.object({ name: z.string(), relations: edges.optional(), permissions: edges.optional(), version: z.number().int().optional() }).optional(),
  at: time,
}).meta({ id: 'Change' });
const accessView = z.object({
  name: z.string(), subject: z.string(), permission: z.string(), resourceType: z.string(), count: z.number().int(),
  revision: z.number().int(), createdAt: time, refreshedAt: time,
}).meta({ id: 'AccessView' });
const unknownCode = z.enum(['UNKNOWN_TYPE', 'UNKNOWN_PERMISSION']);
/** Present on a deny whose type or action the model lacks (a typo, or a name a migration removed): the deny holds. */
const checkReason = z.object({
  code: unknownCode, message: z.string(),
  didYouMean: z.string().optional().meta({ description: 'The nearest name the model has, when one is near' }),
}).meta({ id: 'CheckReason', description: 'Why a deny names a type or action the model does not have' });
const checkAnswer = z.object({ allowed: z.boolean(), reason: checkReason.optional() });
const decision = z.object({ action: z.string(), resource: z.string(), allowed: z.boolean(), reason: checkReason.optional(), revision: z.number().int() });

export const replies = {
  live: z.object({ status: z.literal('alive'), message: z.string() }),
  ready: z.object({ status: z.enum(['ready', 'not-ready']), checks: z.record(z.string(), check) }),
  token: z.object({ token: z.string() }),
  apiTokenCreated: apiToken.extend({ token: z.string().meta({ description: 'The plaintext, shown this once' }) }),
  apiTokens: z.object({ tokens: z.array(apiToken.extend({ lastUsedAt: time.nullable() })), count: z.number().int() }),
  apiTokenDeleted: z.object({ deleted: apiToken }),
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
    relations: z.array(relation), count: z.number().int(),
    countCapped: z.boolean().meta({ description: 'true: counting every match would read too much; count is a lower bound' }),
  }),
  relation,
  relationDeleted: z.object({ deleted: relation, revision }),
  granted: z.object({ grant, created: z.boolean(), revision }),
  revoked: z.object({ deleted: grant, revision }),
  allowed: checkAnswer,
  evaluation: z.object({
    allowed: z.boolean(), assigned: z.boolean().optional(), reason: z.string().optional(),
    reasonCode: unknownCode.optional().meta({ description: 'When the type or action is unknown to the model; reason then says which' }),
    didYouMean: z.string().optional(),
    paths: z.array(z.string()).optional().meta({ description: 'The stored tuples, in order, that make the decision' }), subjectIndex: z.unknown().optional(), objectIndex: z.unknown().optional(),
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
    pending: z.number().int(), appliedRevision: z.number().int(), revision: z.number().int(), generation: z.number().int(),
    building: z.number().int().nullable(),
  }).catchall(z.unknown()),
  config: z.record(z.string(), z.record(z.string(), z.unknown())),
  configModule: z.record(z.string(), z.unknown()),
  state: stateHeader.extend({ relations: z.array(stateTuple).optional(), grants: z.array(stateGrant).optional() }).meta({ id: 'State' }),
  stateImport: z.object({
    dryRun: z.boolean(), prune: z.boolean(), resources: changes.extend({ removed: names }), schemas: changes.extend({ removed: names }),
    config: changes.extend({ removed: names }), relations: counts.optional(), grants: counts.optional(), notes: names, revision: z.number().int(),
  }).meta({ id: 'StateImportReport' }),
  schemas: z.object({ schemas: z.array(schema), count: z.number().int() }),
  schema,
  schemaExport: z.object({ schemas: z.array(z.object({ name: z.string(), fields: z.record(z.string(), z.unknown()), serviceOptions: z.unknown() })) }),
  schemaImport: changes,
  collections: z.object({ collections: names }),
  introspected: z.object({ schemas: z.array(z.object({ collectionName: z.string(), fields: z.record(z.string(), z.unknown()) }).catchall(z.unknown())), count: z.number().int() }),
  finalized: z.object({ schemas: z.array(schema), count: z.number().int() }),
  openapi: z.object({ openapi: z.string(), info: z.unknown(), paths: z.record(z.string(), z.unknown()) }).catchall(z.unknown()),
  text: z.string(),
  registered: z.object({ user }),
  tokens,
  ok: z.object({ ok: z.literal(true) }),
  me: z.object({ user }),
  teamCreated: team.extend({ createdAt: time }),
  teams: z.object({ teams: z.array(team), count: z.number().int() }),
  joined: z.object({ team, roles: names, revision }),
  invitation: z.object({ invitationToken: z.string(), teamId: z.string(), email: z.string(), expiresAt: time }),
  members: z.object({ members: z.array(z.object({ userId: z.string(), email: z.string().nullable(), roles: names })), count: z.number().int() }),
  roles: z.object({ roles: names }),
  document: doc,
  documents: z.object({ documents: z.array(doc), count: z.number().int() }),
  documentDeleted: z.object({ deleted: doc, tuples: z.number().int() }),
} as const;
