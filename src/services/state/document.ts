// The portable state document (DESIGN.md section 6): `{ version: 1, resources, schemas, config, relations?, grants? }`.
import { z } from 'zod';
import { NAME_RE } from '../../engine/ids.js';

const name = z.string().regex(NAME_RE, 'must match ^[A-Za-z][A-Za-z0-9_]*$');
export const stateTuple = z.strictObject({ subject: z.string(), relation: z.string(), resource: z.string() });
export const stateGrant = z.strictObject({ subject: z.string(), permission: z.string(), resource: z.string() });

/** Everything but the tuples: small, so it is read whole (it is the first line of an NDJSON export). */
export const stateHeader = z.strictObject({
  version: z.literal(1, { message: 'version must be 1' }),
  exportedAt: z.string().optional(),
  revision: z.number().int().min(0).optional(),
  /** The sections an export carries besides the header (NDJSON: as lines), so a prune knows what the document speaks for. */
  carries: z.array(z.enum(['relations', 'grants'])).optional(),
  resources: z.array(z.strictObject({
    name,
    relations: z.record(z.string(), z.array(z.string())).default({}),
    permissions: z.record(z.string(), z.array(z.string())).default({}),
  })).optional(),
  schemas: z.array(z.strictObject({
    name: z.string(),
    fields: z.record(z.string(), z.unknown()),
    serviceOptions: z.strictObject({ authorization: z.strictObject({ enabled: z.boolean().optional() }).optional() }).optional(),
  })).optional(),
  config: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  relations: z.array(stateTuple).optional(),
  grants: z.array(stateGrant).optional(),
});
export type StateHeader = z.infer<typeof stateHeader>;

/** The last line of an NDJSON export with tuples: how many tuple and grant lines it wrote, so a cut-short file is told. */
export const stateEnd = z.strictObject({ end: z.strictObject({ relations: z.number().int().min(0), grants: z.number().int().min(0) }) });

/** One NDJSON line after the header: a tuple, a direct grant, or the end line. */
export const stateLine = z.union([stateTuple, stateGrant, stateEnd]);
export type StateLine = z.infer<typeof stateLine>;

export const NDJSON = 'application/x-ndjson';
