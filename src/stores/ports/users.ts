// Client users (the authentication module).

/** Email is stored lowercased and is unique. */
export interface UserRecord {
  _id: string;
  email: string;
  passwordHash: string;
  createdAt: Date;
}
export interface UserStore {
  /** Null when the email is taken. */
  insert(user: UserRecord): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(id: string): Promise<UserRecord | null>;
  findByIds(ids: string[]): Promise<UserRecord[]>;
}
