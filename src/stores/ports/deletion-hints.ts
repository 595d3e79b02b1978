// Recently deleted tuples and grants, so an applier reads back exactly those that may have raced with an add.

/**
 * Tuples and grants deleted lately. Adds are applied as "stored" without reading MongoDB back, which is
 * right unless a delete of the same tuple raced with the add; a delete marks its tuple here before it is
 * applied, so the applier reads MongoDB for exactly those.
 */
export interface DeletionHints {
  mark(texts: string[]): Promise<void>;
  hinted(texts: string[]): Promise<Set<string>>;
}
