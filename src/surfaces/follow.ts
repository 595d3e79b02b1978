// Follows the change feed route for one caller: page after page, then waits for activity; used by gRPC Watch and the admin socket.
import type { Activity } from '../services/activity.js';
import type { Caller, Pipeline } from './pipeline.js';

export interface FeedPage {
  changes: Array<Record<string, unknown>>;
  next: number;
}

/** How long an idle follower waits before asking again without being woken (applied batches wake it sooner). */
const IDLE_MS = 1000;
/** An index batch wakes followers a moment before its revisions count as settled. */
const SETTLE_MS = 25;
const PAGE = '1000';
export const FEED_ROUTE = 'get_authorization_changes';

/**
 * Yields every page of changes after `after` as it becomes settled, until `signal` aborts. Each page is one call of
 * the change feed route through the pipeline (credentials, limits and errors as any call); errors end the loop.
 */
export async function* followChanges(pipeline: Pipeline, follower: Caller, after: number, activity: Activity, signal: AbortSignal): AsyncGenerator<FeedPage> {
  // A page a second while idle: counted as any call, but not an info line each.
  const caller: Caller = { ...follower, quiet: true };
  let cursor = after;
  while (!signal.aborted) {
    const reply = await pipeline.call('admin', FEED_ROUTE, { query: { after: String(cursor), limit: PAGE } }, caller);
    const page = reply.body as FeedPage;
    if (page.changes.length > 0 || page.next !== cursor) {
      cursor = page.next;
      yield page;
      continue;
    }
    await activity.wait(IDLE_MS, signal);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
}
