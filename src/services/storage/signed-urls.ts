// Expiring file links: an HMAC over the file id, the user who asked for the link and the expiry, checked in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class UrlSigner {
  private readonly key: Buffer;

  /** The key is derived from a service secret, so no new secret has to be kept, and it signs nothing else. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('authz-graph storage url signing v2').digest();
  }

  /** File and user ids hold no newline (both are checked where they come in), so the fields cannot run into each other. */
  sign(id: string, userId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${id}\n${userId}\n${expires}`).digest('base64url');
  }

  /** Whether `signature` is this service's for `id` and `userId` until `expires` (seconds since the epoch), and that time is not past. */
  verify(id: string, userId: string, expires: number, signature: string, now = Date.now()): 'ok' | 'expired' | 'invalid' {
    const want = Buffer.from(this.sign(id, userId, expires));
    const got = Buffer.from(signature);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return 'invalid';
    return expires * 1000 < now ? 'expired' : 'ok';
  }
}
