// Constant-time comparison of secrets of any length.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Compares fixed-size digests, so neither content nor length leaks through timing. */
export const secretEquals = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digest(expected));
