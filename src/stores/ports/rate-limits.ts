// Rate-limit counters shared by every process: a fixed number of points per window, per key.

export interface RateCounter {
  /**
   * Takes one point of `who` in the bucket named `name` (at most `max` per `windowMs`): null when it was
   * granted, else how many ms until a point is free again.
   */
  take(name: string, max: number, windowMs: number, who: string): Promise<number | null>;
}
