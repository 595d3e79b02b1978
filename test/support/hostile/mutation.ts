// Which routes may change state, and whether an input would get past the pipeline's validation (then it is poisoned).
import type { RawInput } from '../../../src/surfaces/pipeline.js';
import type { Route } from '../../../src/surfaces/registry.js';
import { unstorable } from '../../../src/engine/storable.js';

/** Routes that are not GETs but only read (decisions, bulk checks): they take any generated input. */
const READ_ONLY_WRITES = new Set(['post_authorization_permissions_bulk', 'post_authorization_decisions']);

/**
 * A route whose valid input could change something: every non-GET except the read-only ones. Logins count too: a
 * valid one would issue tokens (and a failed one counts against the account), so they are only sent invalid input.
 */
export const mutating = (r: Route) => r.http.method !== 'get' && !READ_ONLY_WRITES.has(r.id);

/** The marker every poisoned input carries: a NUL, which the pipeline refuses in any string of any location. */
export const POISON = 'poison\u0000';

/**
 * Whether the pipeline would take this input past validation (the same checks, in the same order, as
 * Pipeline.run: stored-shape rules on every location, then each location's schema; none means "no fields"), in
 * `locations` (a streamed body is not the pipeline's to check).
 */
export function wouldPass(r: Route, raw: RawInput, locations: ReadonlyArray<'params' | 'query' | 'body'> = ['params', 'query', 'body']): boolean {
  for (const where of locations) {
    if (unstorable(raw[where], where)) return false;
    const schema = r[where];
    const value = raw[where];
    if (!schema) {
      if (value && typeof value === 'object' && Object.keys(value).length > 0) return false;
      continue;
    }
    if (!schema.safeParse(value ?? {}).success) return false;
  }
  return true;
}
