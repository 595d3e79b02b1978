// A change marker shared by all processes, which says when a process's cached copy is stale: each bump a value never
// seen before, even after the store lost its data.

/** `read` is null when it cannot be read (then nothing cached is trusted). */
export interface Epoch {
  read(): Promise<string | null>;
  bump(): Promise<void>;
}
