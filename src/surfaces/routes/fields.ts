// Input fields several route modules share: object references and names, with the engine's rules and length caps.
import { z } from 'zod';
import { MAX_OBJECT_BYTES, NAME_RE, NAME_RULE, OBJECT_RULE, parseObject } from '../../engine/ids.js';
import type { ReadOptions } from '../../services/authorization/checks.js';

/** `Type:id`, at most MAX_OBJECT_BYTES bytes. */
export const objectText = z.string().refine((s) => parseObject(s) !== null, { message: OBJECT_RULE });
/** A type, relation or permission name. */
export const nameText = z.string().regex(NAME_RE, NAME_RULE);
/** A tuple's parts before the service checks them against the model: only their lengths are bounded here. */
export const tuplePart = z.string().max(MAX_OBJECT_BYTES);

/**
 * How fresh a read must be (DESIGN 5 "Consistency"), the same fields on admin and client reads: at_least_as_fresh with
 * `revision` waits (at most FRESHNESS_WAIT_MS, 5 s by default, then 503 INDEX_BEHIND) until the index has applied that revision.
 */
export const consistencyFields = {
  consistency: z.enum(['minimize_latency', 'at_least_as_fresh', 'fully_consistent']).optional(),
  // Query strings arrive as text: only digits count, since coercion alone would read `revision=` as 0 and `1e3` as 1000.
  revision: z.union([z.number(), z.string().regex(/^[0-9]{1,16}$/, 'must be a whole number of digits')])
    .pipe(z.transform(Number)).pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).optional(),
};
/** The read options `Checks` takes, from a query or body with `consistencyFields`. */
export const readOptions = (q: { consistency?: ReadOptions['consistency']; revision?: number }): ReadOptions => ({ consistency: q.consistency, revision: q.revision });
/**
 * Text that goes into a message header (a mail subject, a push title): a CR or LF in it would end the header and start
 * another (`\r\nBcc: someone`), so either is refused by name rather than sent or stored.
 */
export const headerText = (max: number) => z.string().min(1).max(max).regex(/^[^\r\n]*$/, 'may not contain a line break (CR or LF): it goes into a message header');
/**
 * A revision in a query: digits only, as the feed socket takes it (a coerced number would also take `0x10`, `1e3` and
 * an empty string), at most 15 so it stays an exact integer.
 */
export const revisionText = z.string().regex(/^\d{1,15}$/, 'must be a revision: a whole number of at most 15 digits').transform(Number);
