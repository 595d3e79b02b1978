// The stored id of a relationship or grant, derived from its tuple text: shared by the MongoDB adapter and its in-memory twin.
import { createHash } from 'node:crypto';

/**
 * Relationship and grant ids derive from the tuple text, so the unique key is `_id` itself: lookups by
 * tuple are `_id` lookups (FerretDB v1 pushes down only those) and a repeated insert fails on `_id`.
 */
export const tupleId = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);
