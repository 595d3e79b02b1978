// Groups a cursor's documents into arrays of at most `size`, so a caller streams a result instead of holding it whole.
export async function* inBatches<T>(cursor: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  for await (const row of cursor) {
    chunk.push(row);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}
