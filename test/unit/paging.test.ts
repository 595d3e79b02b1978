// Paging a sorted list with one more id merged in: every page of every list equals the slice of the merged list.
import { pageWithExtra } from '../../src/services/authorization/paging.js';

it('gives the slice of the merged list for every skip and limit, with the right count', async () => {
  const ids = ['b', 'd', 'f', 'h', 'j'];
  for (const extra of [null, 'a', 'b', 'c', 'f', 'g', 'j', 'k']) {
    const merged = extra === null || ids.includes(extra) ? ids : [...ids, extra].sort();
    const counted = { count: ids.length, below: extra === null ? 0 : ids.filter((i) => i < extra).length, has: extra !== null && ids.includes(extra) };
    for (let skip = 0; skip <= 8; skip++) {
      for (let limit = 0; limit <= 7; limit++) {
        let reads = 0;
        const page = await pageWithExtra(extra, counted, skip, limit, async (s, l) => {
          reads++;
          return ids.slice(s, s + l);
        });
        expect({ extra, skip, limit, ids: page.ids, count: page.count }).toEqual({ extra, skip, limit, ids: merged.slice(skip, skip + limit), count: merged.length });
        expect(reads).toBeLessThanOrEqual(1);
      }
    }
  }
});
