// The request bodies, parameters and list queries of the admin authorization routes (routes/authorization.ts).
import { z } from 'zod';
import { WRITE_MAX } from '../../services/authorization/tuple-updates.js';
import { nameText as name, objectText as object, tuplePart } from './fields.js';

export const listQuery = {
  skip: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(25),
  sort: z.string().regex(/^-?[A-Za-z_]+$/).optional(),
  search: z.string().max(200).optional(),
};
export const definitionBody = {
  relations: z.record(z.string(), z.array(z.string())).default({}),
  permissions: z.record(z.string(), z.array(z.string())).default({}),
  version: z.number().int().min(0).optional(),
};
export const tupleBody = z.strictObject({ subject: tuplePart, relation: tuplePart, resource: tuplePart });
export const grantBody = z.strictObject({ subject: object, permission: name, resource: object });
export const idParam = z.strictObject({ id: z.string().min(1).max(200) });
const update = z.strictObject({
  operation: z.enum(['create', 'delete']).meta({ description: 'create: stored if missing (else counted as existing); delete: removed if stored (else counted as missing)' }),
  subject: tuplePart,
  relation: tuplePart,
  resource: tuplePart,
});
export const writeBody = z.strictObject({
  updates: z.array(update).min(1, 'needs at least one update')
    .max(WRITE_MAX, `has more than ${WRITE_MAX} updates; split the write into calls of at most ${WRITE_MAX}`),
}).meta({ description: [
  `Up to ${WRITE_MAX} updates, each with its own subject, relation and resource, validated whole before anything is written:`,
  "every tuple well-formed (400), each create's relation declared by its resource type and its subject type allowed (422 with",
  "the model's code; `details[].index` names the update), and no tuple twice in one call (400 naming both indexes). One refused",
  'update and nothing changes. A delete needs only a well-formed tuple, so one a narrowed definition no longer allows can go.',
  'All updates are committed to the change log as one entry at one revision (the answer), stored, then indexed in coalesced',
  'batches after the answer: a read with consistency=at_least_as_fresh&revision=<revision> sees all of them. The change feed',
  'lists each update at that revision, in call order, as a create or a delete. Repeating the call is safe.',
].join(' ') });

export const viewName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'letters, digits, _ . - (at most 100)');
