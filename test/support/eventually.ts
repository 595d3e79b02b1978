// Polls a reading until it matches, for a bounded time, then asserts on the last value read (browser tests).
export async function eventually(read: () => Promise<string | null>, want: string | RegExp, ms = 10_000): Promise<void> {
  const ok = (t: string | null) => t !== null && (typeof want === 'string' ? t === want : want.test(t));
  let text = await read();
  for (const end = Date.now() + ms; !ok(text) && Date.now() < end; text = await read()) await new Promise((r) => setTimeout(r, 25));
  if (typeof want === 'string') expect(text).toBe(want);
  else expect(text).toMatch(want);
}
