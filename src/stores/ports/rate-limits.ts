// Rate-limit counters shared by every process: a fixed number of points per window, per key.

export interface RateCounter {
  /**
   * Takes `points` (default one) of `who` in the bucket named `name` (at most `max` per `windowMs`): null when
   * they were granted, else how many ms until points are free again.
   */
  take(name: string, max: number, windowMs: number, who: string, points?: number): Promise<number | null>;
}
