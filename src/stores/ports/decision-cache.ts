// The shared decision cache: decisions stored under the epochs of their subject, their object and the index structure.

export interface DecisionStore {
  /** The current stamp of (subject, object, structure), and the stored decision when it was stored under that stamp. Throws when unreachable. */
  lookup(subject: string, action: string, object: string): Promise<{ hit: boolean | null; stamp: string }>;
  /**
   * The stamp a list of `type` objects for `subject` is valid under: it changes with the subject's epoch, the type's,
   * and the structure's. Null when the store cannot tell (its epochs may have started again). Throws when unreachable.
   */
  listStamp(subject: string, type: string): Promise<string | null>;
  /** Stores a decision under the stamp its lookup returned. */
  put(subject: string, action: string, object: string, allowed: boolean, stamp: string): Promise<void>;
  /** Moves on the epochs of these objects and types, and the structure's when `structure`, all at once; throws when they did not move. */
  bump(objects: string[], types: string[], structure: boolean): Promise<void>;
}
