// Reads a change feed from the start, page after page, to the end: the revisions in the order served.
import type { ChangeFeed } from '../../src/services/authorization/change-feed.js';

export async function readAllRevisions(feed: ChangeFeed, limit: number): Promise<number[]> {
  const revisions: number[] = [];
  let after = 0;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await feed.page(after, limit);
    if (page.changes.length === 0) break;
    revisions.push(...page.changes.map((c) => c.revision));
    after = page.next;
  }
  return revisions;
}
