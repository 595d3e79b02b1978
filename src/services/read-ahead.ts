// Overlaps reading with processing: asks a source for its next item while the caller still works on the current one.
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const r = await next;
      if (r.done) return;
      next = it.next();
      // Keep a rejection of the read-ahead from being unhandled while the caller is busy; it surfaces on the next await.
      next.catch(() => undefined);
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}
