// API tokens: `cdt_` + base64url of 32 random bytes, stored as a SHA-256 digest; plaintext returned once.
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { ApiTokenRecord, ApiTokenStore } from '../stores/ports/api-tokens.js';
import { API_TOKEN_PREFIX, TOKEN_PREFIX_LENGTH, type AdminPrincipal } from './admin-auth.js';
import { tokenDigest } from './secrets.js';

const DAY_MS = 86_400_000;
export const DEFAULT_EXPIRY_DAYS = 90;

const publicView = (r: ApiTokenRecord) => ({
  id: r._id,
  name: r.name,
  tokenPrefix: r.tokenPrefix,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  lastUsedAt: r.lastUsedAt,
});

export class ApiTokens {
  constructor(private readonly store: ApiTokenStore) {}

  async create(by: AdminPrincipal, name: string, expiresInDays = DEFAULT_EXPIRY_DAYS) {
    if (by.via === 'apiToken') throw new AppError('FORBIDDEN', 'API tokens are created with an admin JWT or the masterkey');
    const now = new Date();
    for (;;) {
      const token = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
      const record = await this.store.insert({
        name,
        tokenPrefix: token.slice(0, TOKEN_PREFIX_LENGTH),
        hash: tokenDigest(token),
        adminId: by.adminId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiresInDays * DAY_MS),
        lastUsedAt: null,
      });
      if (record) return { token, tokenPrefix: record.tokenPrefix, id: record._id, name: record.name, expiresAt: record.expiresAt };
    }
  }

  async list(by: AdminPrincipal) {
    const tokens = (await this.store.listByAdmin(by.adminId)).map(publicView);
    return { tokens, count: tokens.length };
  }

  async revoke(by: AdminPrincipal, id: string) {
    const record = await this.store.findById(id);
    if (!record) throw new AppError('NOT_FOUND', `No API token ${id}`);
    if (record.adminId !== by.adminId) throw new AppError('FORBIDDEN', 'An admin can revoke only their own API tokens');
    await this.store.delete(id);
    return { deleted: publicView(record) };
  }
}
