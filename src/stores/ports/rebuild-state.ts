// Index rebuilds: what was requested and how far the running one has got, shared by every process.

/** What a rebuild request asks for, and how far a running one has got. */
export interface RebuildRequest {
  soft: boolean;
  revision: number;
  at: Date;
}
export interface RebuildRun extends RebuildRequest {
  owner: string;
  gen: number;
  startedAt: Date;
  phase: string;
  done: number;
  total: number;
}
export interface RebuildState {
  requested: RebuildRequest | null;
  running: RebuildRun | null;
}
export interface RebuildStateStore {
  get(): Promise<RebuildState>;
  put(state: RebuildState): Promise<void>;
}
