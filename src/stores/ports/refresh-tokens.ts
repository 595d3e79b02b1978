// Client refresh tokens, rotated on use and revoked by family.

/** A refresh token, stored by the hash of its value; rotating it marks it used, and every token of a login shares a family. */
export interface RefreshRecord {
  _id: string;
  userId: string;
  family: string;
  expiresAt: Date;
  used: boolean;
}
export interface RefreshTokenStore {
  insert(record: RefreshRecord): Promise<void>;
  /**
   * Claims a live token for one renewal. `reused` when it was claimed already (by an earlier or a racing
   * renewal); null when no such token exists.
   */
  use(hash: string): Promise<{ record: RefreshRecord; reused: boolean } | null>;
  /** Deletes a token (a renewal whose family was revoked meanwhile gives its new token back). */
  remove(hash: string): Promise<void>;
  /** Records the family as revoked for good, then deletes its live tokens. */
  revokeFamily(family: string): Promise<void>;
  familyRevoked(family: string): Promise<boolean>;
  /** Deletes tokens (live and used) expired before `now`, and revoked families recorded before `revokedBefore`; how many. */
  purgeExpired(now: Date, revokedBefore: Date): Promise<number>;
}
