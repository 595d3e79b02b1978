// A bound on how long a caller waits for work that goes on after it: the work's answer, or `late()`'s error past `ms`.

/** Resolves as `work` does, or rejects with `late()` once `ms` pass first; the timer is cleared either way. */
export function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
