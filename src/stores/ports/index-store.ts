// The precomputed index (rows, flats and holds per generation) that answers checks and lists.

export interface RowRecord { action: string; public: boolean; keys: string[]; refs: string[] }
export interface ObjectRows { obj: string; type: string; rows: RowRecord[]; hash: string }
export interface FlatRecord { id: string; obj: string; public: boolean; keys: string[]; deps: string[]; hash: string }
export interface IndexRecords {
  gen: number;
  objectIndex: { id: string; public: boolean; keys: string[]; refs: Array<{ id: string; public: boolean; keys: string[] }> } | null;
  subjectIndex: { subject: string; keys: string[] } | null;
}

/** The precomputed index, by generation. Every write names its generation; `gen` 0 never exists. */
export interface IndexStore {
  meta(): Promise<{ gen: number; building: number | null }>;
  setBuilding(gen: number | null): Promise<void>;
  switchGeneration(gen: number): Promise<void>;
  check(subject: string, object: string, action: string): Promise<{ rowExists: boolean; allowed: boolean }>;
  records(subject: string, object: string, action: string): Promise<IndexRecords>;
  /** Replaces the rows of each object whose content hash changed; returns the objects that changed. */
  putRows(gen: number, objects: ObjectRows[]): Promise<string[]>;
  deleteRows(gen: number, objects: string[]): Promise<void>;
  /** Writes flats whose content hash changed, with their dependencies; returns how many changed. */
  /** Writes the flats whose content changed; returns their ids. */
  putFlats(gen: number, flats: FlatRecord[]): Promise<string[]>;
  /** Objects whose rows refer to any of these flats, at most `limit`. */
  rowsReferring(gen: number, flatIds: string[], limit: number): Promise<string[]>;
  /** Objects owning a flat that depends on any of `objects` (including the objects themselves). */
  flatsDependingOn(gen: number, objects: string[]): Promise<string[]>;
  /** Which of `objects` already have flats. */
  flattened(gen: number, objects: string[]): Promise<Set<string>>;
  /** Adds (present) or removes the key a subject holds through one tuple or grant. */
  syncHolds(gen: number, items: HoldChange[]): Promise<void>;
  /** One page, in id order, of the objects of `type` on which `subject` has `action`. */
  listObjects(subject: string, action: string, type: string, skip: number, limit: number): Promise<string[]>;
  countObjects(subject: string, action: string, type: string, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the subjects of `subjectType` holding `action` on `object`. */
  listSubjects(object: string, action: string, subjectType: string, skip: number, limit: number): Promise<string[]>;
  countSubjects(object: string, action: string, subjectType: string, pivot: string): Promise<ListCount & { public: boolean }>;
  /** Whether `subject` holds `key` (a relation `O#r` is its own key: relations have no rows). */
  holds(subject: string, key: string): Promise<boolean>;
  /** One page, in id order, of the objects of `type` whose `relation` key `subject` holds. */
  listHeld(subject: string, type: string, relation: string, skip: number, limit: number): Promise<string[]>;
  countHeld(subject: string, type: string, relation: string, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the subjects of `subjectType` holding `key`. */
  listHolders(key: string, subjectType: string, skip: number, limit: number): Promise<string[]>;
  countHolders(key: string, subjectType: string, pivot: string): Promise<ListCount>;
  dropGeneration(gen: number): Promise<number>;
}
/** A list's length, how many of its ids sort before `pivot`, and whether `pivot` is one of them. */
export interface ListCount { count: number; below: number; has: boolean }
export interface HoldChange { subject: string; key: string; present: boolean }
