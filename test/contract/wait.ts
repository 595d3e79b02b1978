// Waiting in contract tests: sleeps past a time to live, and polls a condition for a bounded time (never timing it).
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 20 ms until it holds or `ms` pass; returns its last answer, for the caller to assert. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await pause(20)) if (await cond()) return true;
  return cond();
}
