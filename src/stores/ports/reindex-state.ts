// Definition changes whose re-index is not finished yet, shared by every process: their types are answered from the projection.

/** One pending re-index: the changed type, the types whose decisions it can change, and when it began (ms). */
export interface PendingReindex {
  revision: number;
  type: string;
  affected: string[];
  at: number;
}

export interface ReindexState {
  /** Records a re-index as begun (before the definition change is acknowledged). */
  begin(r: PendingReindex): Promise<void>;
  /** Forgets a finished (or abandoned) re-index. */
  end(revisions: number[]): Promise<void>;
  all(): Promise<PendingReindex[]>;
}
