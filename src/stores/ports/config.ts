// Config module overrides by module name.
export interface ConfigStore {
  all(): Promise<Record<string, Record<string, unknown>>>;
  get(module: string): Promise<Record<string, unknown> | null>;
  put(module: string, value: Record<string, unknown>): Promise<void>;
}
