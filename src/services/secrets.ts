// Constant-time comparison of secrets of any length.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** The expected side is the same secret on every request (the masterkey): its digest is computed once. */
let expectedDigest: { secret: string; digest: Buffer } | null = null;
const digestOfExpected = (s: string): Buffer => {
  if (expectedDigest?.secret !== s) expectedDigest = { secret: s, digest: digest(s) };
  return expectedDigest.digest;
};

/**
 * How an API token is stored: a SHA-256 of a 256-bit random secret cannot be searched, so it needs no slow hash
 * (bcrypt cost a guesser's every try in the service's thread pool). The `sha256:` tag tells it from older bcrypt hashes.
 */
export const tokenDigest = (token: string): string => `sha256:${digest(token).toString('hex')}`;

/** Whether `token` is the one `stored` (a `tokenDigest`) was made from, in constant time. */
export const tokenMatches = (token: string, stored: string): boolean => {
  const given = Buffer.from(tokenDigest(token));
  const expected = Buffer.from(stored);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

/** Compares fixed-size digests, so neither content nor length leaks through timing. */
export const secretEquals = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digestOfExpected(expected));
