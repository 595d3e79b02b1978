// Client authentication: registration, login, rotating refresh tokens with reuse detection, logout, bearer checks.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import bcrypt from 'bcrypt';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors.js';
import { dummyHash, PASSWORD_ROUNDS } from './dummy-hash.js';
import type { RefreshTokenStore } from '../stores/ports/refresh-tokens.js';
import type { TokenDenyList } from '../stores/ports/token-deny-list.js';
import type { UserRecord, UserStore } from '../stores/ports/users.js';

const ISSUER = 'authz-client';
const AUDIENCE = 'client';

export interface ClientPrincipal {
  userId: string;
  tokenId: string;
  expiresAt: Date;
  family: string;
}
export interface TokenPair {
  userId: string;
  accessToken: string;
  refreshToken: string;
}

export const userView = (u: UserRecord) => ({ _id: u._id, email: u.email, createdAt: u.createdAt });
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const normalise = (email: string) => email.trim().toLowerCase();

/** Verified access tokens kept in memory (each a few hundred bytes). */
const VERIFIED_MAX = 10_000;

export class ClientAuth {
  private readonly verified = new Map<string, ClientPrincipal>();
  private readonly key: Uint8Array;
  constructor(private readonly deps: {
    users: UserStore;
    refresh: RefreshTokenStore;
    deny: TokenDenyList;
    jwtSecret: string;
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
  }) {
    this.key = new TextEncoder().encode(deps.jwtSecret);
  }

  /**
   * Forgets what can no longer be presented: refresh tokens past their expiry (live and rotated ones alike: every
   * login and renewal stores one), and revoked families older than any token of theirs could be.
   */
  purgeExpired(): Promise<number> {
    const now = Date.now();
    return this.deps.refresh.purgeExpired(new Date(now), new Date(now - this.deps.refreshTtlSeconds * 1000));
  }

  async register(email: string, password: string) {
    const user = await this.deps.users.insert({
      _id: randomUUID(),
      email: normalise(email),
      passwordHash: await bcrypt.hash(password, PASSWORD_ROUNDS),
      createdAt: new Date(),
    });
    if (!user) throw new AppError('ALREADY_EXISTS', 'An account with this email exists');
    return { user: userView(user) };
  }

  async login(email: string, password: string): Promise<TokenPair> {
    const user = await this.deps.users.findByEmail(normalise(email));
    const ok = await bcrypt.compare(password, user?.passwordHash ?? await dummyHash());
    // One answer for an unknown email and a wrong password: accounts cannot be probed.
    if (!user || !ok) throw new AppError('UNAUTHENTICATED', 'Invalid email or password');
    return this.issue(user._id, randomUUID());
  }

  /**
   * Rotates a refresh token. Presenting one that was rotated already (or racing another renewal with it)
   * revokes its whole family; a renewal that overlaps a revocation gives its new token back.
   */
  async renew(refreshToken: string): Promise<TokenPair> {
    const hash = hashOf(refreshToken);
    const claimed = await this.deps.refresh.use(hash);
    if (claimed === null) throw new AppError('UNAUTHENTICATED', 'Invalid refresh token');
    const { record, reused } = claimed;
    if (reused) {
      await this.endFamily(record.family);
      throw new AppError('UNAUTHENTICATED', 'This refresh token was used already; every session of this login is revoked');
    }
    if (record.expiresAt.getTime() <= Date.now()) throw new AppError('TOKEN_EXPIRED', 'The refresh token has expired; log in again');
    if (await this.deps.refresh.familyRevoked(record.family)) throw new AppError('UNAUTHENTICATED', 'This session has ended; log in again');
    const pair = await this.issue(record.userId, record.family);
    // A revocation that ran while this renewal was issuing did not see the new token: look again.
    if (await this.deps.refresh.familyRevoked(record.family)) {
      await this.deps.refresh.remove(hashOf(pair.refreshToken));
      throw new AppError('UNAUTHENTICATED', 'This session has ended; log in again');
    }
    return pair;
  }

  /** Ends the session: its access tokens are refused at once, and its refresh tokens die. */
  async logout(p: ClientPrincipal): Promise<{ ok: true }> {
    await this.endFamily(p.family);
    return { ok: true };
  }

  /** Every access token of a login (they carry its family) is refused until the longest could expire; its refresh tokens go. */
  private async endFamily(family: string): Promise<void> {
    await this.deps.deny.deny(`fam:${family}`, new Date(Date.now() + this.deps.accessTtlSeconds * 1000));
    await this.deps.refresh.revokeFamily(family);
  }

  async user(p: ClientPrincipal) {
    const user = await this.deps.users.findById(p.userId);
    if (!user) throw new AppError('UNAUTHENTICATED', 'The account no longer exists');
    return { user: userView(user) };
  }

  /** The token's principal when its signature and expiry hold; whether it was revoked is `revoked`'s question. */
  async verify(authorization: string | undefined): Promise<ClientPrincipal> {
    if (!authorization) throw new AppError('UNAUTHENTICATED', 'Send Authorization: Bearer <access token>');
    const match = /^Bearer ([^\s]+)$/.exec(authorization);
    if (!match) throw new AppError('UNAUTHENTICATED', 'Malformed Authorization header; expected "Bearer <token>"');
    // A client sends the same token on every call until it renews: the same bytes verified once stay verified
    // until the token expires (WebCrypto's HMAC is an asynchronous job, a noticeable share of a cached check).
    const known = this.verified.get(match[1]!);
    if (known) {
      if (known.expiresAt.getTime() > Date.now()) return known;
      this.verified.delete(match[1]!);
    }
    const principal = await this.verifySignature(match[1]!);
    if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(match[1]!, principal);
    return principal;
  }

  private async verifySignature(token: string): Promise<ClientPrincipal> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED', 'The access token has expired; renew it');
      throw new AppError('UNAUTHENTICATED', 'Invalid access token');
    }
    const { sub, jti, exp, fam } = payload as { sub?: string; jti?: string; exp?: number; fam?: string };
    if (!sub || !jti || !exp || !fam) throw new AppError('UNAUTHENTICATED', 'Invalid access token');
    return { userId: sub, tokenId: jti, expiresAt: new Date(exp * 1000), family: fam };
  }

  /** Resolves when the token was not revoked (logout, refresh-token reuse); rejects with 401 when it was. */
  async live(p: ClientPrincipal): Promise<void> {
    if (await this.deps.deny.denied([p.tokenId, `fam:${p.family}`])) throw new AppError('UNAUTHENTICATED', 'This session has ended; log in again');
  }

  async authenticate(authorization: string | undefined): Promise<ClientPrincipal> {
    const p = await this.verify(authorization);
    await this.live(p);
    return p;
  }

  private async issue(userId: string, family: string): Promise<TokenPair> {
    const accessToken = await new SignJWT({ fam: family })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setIssuer(ISSUER).setAudience(AUDIENCE).setJti(randomUUID())
      .setIssuedAt().setExpirationTime(`${this.deps.accessTtlSeconds}s`).sign(this.key);
    const refreshToken = randomBytes(32).toString('base64url');
    await this.deps.refresh.insert({
      _id: hashOf(refreshToken),
      userId,
      family,
      used: false,
      expiresAt: new Date(Date.now() + this.deps.refreshTtlSeconds * 1000),
    });
    return { userId, accessToken, refreshToken };
  }
}
