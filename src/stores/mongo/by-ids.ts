// Documents by a list of ids: one indexed `_id` lookup each (FerretDB v1 scans a whole collection for `$in`).
import type { Collection, Document, Filter } from 'mongodb';

export async function findByIds<T extends Document & { _id: string }>(col: Collection<T>, ids: string[]): Promise<T[]> {
  const unique = [...new Set(ids)];
  const found = await Promise.all(unique.map((id) => col.findOne({ _id: id } as Filter<T>)));
  return found.filter((d): d is NonNullable<typeof d> => d !== null) as unknown as T[];
}
