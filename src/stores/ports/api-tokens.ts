// Admin API tokens, stored by a prefix and a hash of the secret.
export interface ApiTokenRecord {
  _id: string;
  name: string;
  tokenPrefix: string;
  hash: string;
  adminId: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
}
export interface ApiTokenStore {
  /** Null when the prefix is taken already (48 random bits: the caller draws another token). */
  insert(record: Omit<ApiTokenRecord, '_id'>): Promise<ApiTokenRecord | null>;
  findByPrefix(prefix: string): Promise<ApiTokenRecord[]>;
  listByAdmin(adminId: string): Promise<ApiTokenRecord[]>;
  findById(id: string): Promise<ApiTokenRecord | null>;
  delete(id: string): Promise<boolean>;
  touch(id: string, at: Date): Promise<void>;
}
