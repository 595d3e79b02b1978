// A change counter shared by all processes, which says when a process's cached copy is stale.

/** `read` is null when it cannot be read (then nothing cached is trusted). */
export interface Epoch {
  read(): Promise<string | null>;
  bump(): Promise<void>;
}
