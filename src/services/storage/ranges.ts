// The one byte range of an HTTP `Range` header that a download serves (RFC 9110 section 14).
import { RangeNotSatisfiable } from '../../errors.js';
import type { ByteRange } from '../../stores/ports/file-storage.js';

/**
 * The range asked for, or null for the whole file: no header, another unit, several ranges (the whole file is a valid
 * answer to those) or a malformed one. A range that starts past the end is 416.
 */
export function rangeOf(header: string | undefined, size: number): ByteRange | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw unsatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) throw unsatisfiable(size);
  return { start, end };
}

const unsatisfiable = (size: number) => new RangeNotSatisfiable(size);
