// Constant-time comparison of secrets of any length.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** The expected side is the same secret on every request (the masterkey): its digest is computed once. */
let expectedDigest: { secret: string; digest: Buffer } | null = null;
const digestOfExpected = (s: string): Buffer => {
  if (expectedDigest?.secret !== s) expectedDigest = { secret: s, digest: digest(s) };
  return expectedDigest.digest;
};

/** Compares fixed-size digests, so neither content nor length leaks through timing. */
export const secretEquals = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digestOfExpected(expected));
