// The deletion hints contract: marked tuple texts are hinted to every process, others are not. Twin and Redis.
import { randomUUID } from 'node:crypto';
import type { DeletionHints } from '../../src/stores/ports/deletion-hints.js';

export function deletionHintsContract(make: () => Promise<{ hints(): DeletionHints; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('deletion hints', () => {
    it('hints exactly the marked texts, to every process, however many are asked at once', async () => {
      const [a, b] = [h.hints(), h.hints()];
      const texts = Array.from({ length: 2500 }, (_, i) => `User:u${i}#viewer@Doc:${randomUUID()}`);
      const marked = texts.filter((_, i) => i % 7 === 0);
      await a.mark([]);
      await a.mark(marked);
      expect(await b.hinted(texts)).toEqual(new Set(marked));
      expect(await b.hinted([])).toEqual(new Set());
    });
  });
}
