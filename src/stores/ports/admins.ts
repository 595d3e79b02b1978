// Admin accounts of the admin surface.
export interface AdminRecord {
  _id: string;
  username: string;
  passwordHash: string;
  createdAt: Date;
}
export interface AdminStore {
  findByUsername(username: string): Promise<AdminRecord | null>;
  findById(id: string): Promise<AdminRecord | null>;
  /** Creates the admin, or resets its password hash: the environment is authoritative. */
  upsert(username: string, passwordHash: string): Promise<AdminRecord>;
}
