// Admin authentication: masterkey, admin JWTs (jose, HS256) and API tokens (SHA-256 digests), per contract section 5.
import bcrypt from 'bcrypt';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors.js';
import type { AdminStore } from '../stores/ports/admins.js';
import type { ApiTokenStore } from '../stores/ports/api-tokens.js';
import { dummyHash } from './dummy-hash.js';
import { secretEquals, tokenMatches } from './secrets.js';

/** Tokens made before digests were bcrypt hashes: they keep working until they expire or are rotated (README). */
const matches = async (token: string, stored: string): Promise<boolean> => stored.startsWith('sha256:') ? tokenMatches(token, stored) : bcrypt.compare(token, stored);

export type AdminVia = 'masterkey' | 'jwt' | 'apiToken';
export interface AdminPrincipal {
  adminId: string;
  via: AdminVia;
  tokenId?: string;
}

const ISSUER = 'authz-admin';
const AUDIENCE = 'admin';
export const API_TOKEN_PREFIX = 'cdt_';
export const TOKEN_PREFIX_LENGTH = API_TOKEN_PREFIX.length + 8;
const TOUCH_INTERVAL_MS = 60_000;

export interface AdminAuthDeps {
  admins: AdminStore;
  tokens: ApiTokenStore;
  masterKey: string;
  jwtSecret: string;
  jwtTtlSeconds: number;
  bootstrapAdminId: () => string;
}

export class AdminAuth {
  private readonly key: Uint8Array;
  constructor(private readonly deps: AdminAuthDeps) {
    this.key = new TextEncoder().encode(deps.jwtSecret);
  }

  async login(username: string, password: string): Promise<{ token: string }> {
    const admin = await this.deps.admins.findByUsername(username);
    const ok = await bcrypt.compare(password, admin?.passwordHash ?? await dummyHash());
    if (!admin || !ok) throw new AppError('UNAUTHENTICATED', 'Invalid username or password');
    const token = await new SignJWT({ username })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(admin._id).setIssuer(ISSUER).setAudience(AUDIENCE)
      .setIssuedAt().setExpirationTime(`${this.deps.jwtTtlSeconds}s`).sign(this.key);
    return { token };
  }

  /** Resolves the credentials of an admin request, or throws 401. */
  async authenticate(headers: { masterkey?: string; authorization?: string }): Promise<AdminPrincipal> {
    if (headers.masterkey !== undefined) {
      if (!secretEquals(headers.masterkey, this.deps.masterKey)) throw new AppError('UNAUTHENTICATED', 'Invalid masterkey');
      return { adminId: this.deps.bootstrapAdminId(), via: 'masterkey' };
    }
    const auth = headers.authorization;
    if (!auth) throw new AppError('UNAUTHENTICATED', 'Send a masterkey header or an Authorization: Bearer token');
    const match = /^Bearer ([^\s]+)$/.exec(auth);
    if (!match) throw new AppError('UNAUTHENTICATED', 'Malformed Authorization header; expected "Bearer <token>"');
    const token = match[1]!;
    return token.startsWith(API_TOKEN_PREFIX) ? this.viaApiToken(token) : this.viaJwt(token);
  }

  private async viaJwt(token: string): Promise<AdminPrincipal> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (!payload.sub || !(await this.deps.admins.findById(payload.sub))) throw new AppError('UNAUTHENTICATED', 'Unknown admin');
      return { adminId: payload.sub, via: 'jwt' };
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (e instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED', 'The admin token has expired; log in again');
      throw new AppError('UNAUTHENTICATED', 'Invalid admin token');
    }
  }

  private async viaApiToken(token: string): Promise<AdminPrincipal> {
    // The prefix is the record's key: an unknown prefix is refused after one lookup and no hashing at all.
    const candidates = await this.deps.tokens.findByPrefix(token.slice(0, TOKEN_PREFIX_LENGTH));
    for (const c of candidates) {
      if (!(await matches(token, c.hash))) continue;
      if (c.expiresAt.getTime() <= Date.now()) throw new AppError('TOKEN_EXPIRED', 'The API token has expired');
      const now = new Date();
      if (!c.lastUsedAt || now.getTime() - c.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) await this.deps.tokens.touch(c._id, now);
      return { adminId: c.adminId, via: 'apiToken', tokenId: c._id };
    }
    throw new AppError('UNAUTHENTICATED', 'Invalid or revoked API token');
  }
}
