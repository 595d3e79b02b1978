// Access tokens revoked before they expire (logout, refresh-token reuse).
export interface TokenDenyList {
  deny(id: string, until: Date): Promise<void>;
  /** Whether any of these ids is denied (one round trip). */
  denied(ids: string[]): Promise<boolean>;
}
