// The index partitions contract: the first process on a store fixes the number, every later one gets it. Twin and Redis.
export function partitionsContract(make: () => Promise<{ fixed(wanted: number): Promise<number>; cleanup(): Promise<void> }>) {
  let h: Awaited<ReturnType<typeof make>>;
  beforeEach(async () => {
    h = await make();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  describe('index partitions', () => {
    it('is the number the first process wanted, whatever the later ones want', async () => {
      expect(await h.fixed(8)).toBe(8);
      expect(await h.fixed(4)).toBe(8);
      expect(await h.fixed(8)).toBe(8);
    });
  });
}
