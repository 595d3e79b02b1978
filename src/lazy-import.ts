// A module imported on first use, once: for heavy libraries most processes never call (the MCP SDK, Apollo Server).

/** `load` runs at the first call and its module is kept; a failed load is tried again by the next call, not kept. */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load().catch((e: unknown) => {
    loaded = undefined;
    throw e;
  }));
}
