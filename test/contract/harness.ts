// What a contract suite is given: a way to make a fresh store of one port, the same for the in-memory twin and the real adapter.

/** A store made for one test, and how to clean up after it. */
export type Made<S, X = object> = { store: S; cleanup(): Promise<void> } & X;
export type Make<S, X = object> = () => Promise<Made<S, X>>;

/** A test body run on a store of its own, cleaned up whatever the outcome. */
export function withStore<S, X>(make: Make<S, X>) {
  return (body: (made: Made<S, X>) => Promise<void>) => async () => {
    const made = await make();
    try {
      await body(made);
    } finally {
      await made.cleanup();
    }
  };
}

/** Every batch of an async iterable, in order. */
export async function collect<T>(batches: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const b of batches) out.push(b);
  return out;
}

/** A unique suffix, so tests that share a store's collections do not see each other's records. */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Distinct instants a second apart, oldest first (millisecond-exact in every store). */
export const instants = (n: number, from = Date.UTC(2026, 0, 1)) => Array.from({ length: n }, (_, i) => new Date(from + i * 1000));

/** What `withStore` gives: a contract split into parts passes it to each. */
export type Wrap<S, X = object> = ReturnType<typeof withStore<S, X>>;
