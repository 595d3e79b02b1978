// A set of strings kept as 128-bit fingerprints in one typed array: what a prune must remember of every imported tuple.
import { createHash } from 'node:crypto';

/** Four 32-bit words a slot; a slot of four zeros is empty (a fingerprint's first word is never zero). */
const WORDS = 4;

/**
 * Membership of strings by the first 128 bits of their SHA-256, in an open-addressed table (linear probing, grown at
 * three quarters full). About 21 to 43 bytes an entry, against about 140 for a `Set` of the texts themselves; two
 * different texts share a fingerprint with a probability near n² / 2¹²⁹ (below 10⁻²⁵ at a billion).
 */
export class Fingerprints {
  private slots = new Uint32Array(1024 * WORDS);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  private static print(text: string): Uint32Array {
    const d = createHash('sha256').update(text).digest();
    const p = new Uint32Array([d.readUInt32LE(0), d.readUInt32LE(4), d.readUInt32LE(8), d.readUInt32LE(12)]);
    if (p[0] === 0) p[0] = 1;
    return p;
  }

  /** The slot holding `p`, or the empty slot where it would go. */
  private find(slots: Uint32Array, p: Uint32Array): number {
    const mask = slots.length / WORDS - 1;
    for (let i = p[1]! & mask;; i = (i + 1) & mask) {
      const at = i * WORDS;
      if (slots[at] === 0) return at;
      if (slots[at] === p[0] && slots[at + 1] === p[1] && slots[at + 2] === p[2] && slots[at + 3] === p[3]) return at;
    }
  }

  add(text: string): void {
    const p = Fingerprints.print(text);
    const at = this.find(this.slots, p);
    if (this.slots[at] !== 0) return;
    this.slots.set(p, at);
    if (++this.count * 4 > (this.slots.length / WORDS) * 3) this.grow();
  }

  has(text: string): boolean {
    return this.slots[this.find(this.slots, Fingerprints.print(text))] !== 0;
  }

  private grow(): void {
    const old = this.slots;
    const next = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at] === 0) continue;
      const p = old.subarray(at, at + WORDS);
      next.set(p, this.find(next, p));
    }
    this.slots = next;
  }
}
