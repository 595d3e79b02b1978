// The change log read for the feed in blocks of revisions: point reads only, and settled blocks sealed into one document each.
import type { Collection } from 'mongodb';
import { GAP_FINAL_MS, weightOf, type ChangeEntry } from '../ports/change-log.js';
import { isDuplicateKey } from './duplicate-key.js';

/**
 * FerretDB v1 pushes down only equality filters, so the `_id` range the feed used to ask for read the whole log
 * once per batch (seconds at 30k revisions, minutes at 1M). Here every read is an `_id` equality, which PostgreSQL
 * answers from an index on FerretDB (infra/postgres-sql/ferretdb-gin.sql) and MongoDB from `_id_`. FerretDB also
 * spends about 0.1 ms of CPU on each document it returns, so a page of 1,000 one-tuple entries cost 100 ms in it
 * alone: a block whose revisions are all settled and whose gaps are final never changes again, and is sealed into
 * one document holding its entries, read in one lookup.
 */
export const BLOCK = 100;
/** A sealed block's entries as JSON larger than this (entries of many tuples) keep only their revisions, read one by one. */
const SEALED_MAX_CHARS = 512 * 1024;
/** Point reads in flight at once. */
const PARALLEL = 25;

export interface SealedBlock { _id: number; entries?: string; revisions?: number[] }
type Stored = ChangeEntry & { _id: number };

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * A block's entries are final when its last revision is settled and each missing one has an entry after it this old;
 * `after` is the first entry past the block, which settles a gap at its end (null when there is none yet).
 */
export function isFinal(entries: ChangeEntry[], lo: number, hi: number, after: ChangeEntry | null, now: number): boolean {
  let expected = Math.max(lo, 1);
  for (const e of [...entries, ...(after ? [after] : [])]) {
    if (e.revision > expected && now - e.at.getTime() < GAP_FINAL_MS) return false;
    expected = e.revision + 1;
  }
  return expected > hi;
}

export function changeBlocks(log: Collection<Stored>, sealed: Collection<SealedBlock>, now = () => Date.now()) {
  /** The entries of these revisions that exist, in order, read PARALLEL at a time until they weigh `budget`. */
  async function read(revisions: number[], budget = Infinity): Promise<ChangeEntry[]> {
    const out: ChangeEntry[] = [];
    let held = 0;
    for (let i = 0; i < revisions.length && held < budget; i += PARALLEL) {
      const found = await Promise.all(revisions.slice(i, i + PARALLEL).map((r) => log.findOne({ _id: r })));
      for (const d of found) {
        if (!d) continue;
        const { _id, ...e } = d;
        out.push({ ...e, revision: _id });
        held += weightOf(out.at(-1)!);
      }
    }
    return out;
  }

  async function seal(b: number, entries: ChangeEntry[]): Promise<void> {
    const json = JSON.stringify(entries.map((e) => ({ ...e, at: e.at.getTime() })));
    const doc = json.length <= SEALED_MAX_CHARS ? { _id: b, entries: json } : { _id: b, revisions: entries.map((e) => e.revision) };
    // Another reader sealing the same block wrote the same entries.
    await sealed.insertOne(doc).catch((e: unknown) => { if (!isDuplicateKey(e)) throw e; });
  }

  /** Block `b`'s entries after `after`, the whole block being settled: from its sealed copy, else read, and sealed if final. */
  async function settledBlock(b: number, copy: SealedBlock | null, after: number, budget: number): Promise<ChangeEntry[]> {
    const lo = b * BLOCK;
    const hi = lo + BLOCK - 1;
    if (copy?.entries !== undefined) {
      return (JSON.parse(copy.entries) as Array<ChangeEntry & { at: number }>).filter((e) => e.revision > after).map((e) => ({ ...e, at: new Date(e.at) }));
    }
    if (copy?.revisions) return read(copy.revisions.filter((r) => r > after), budget);
    // Read whole (a follower in the middle of it pays once more than it needs) so that it can be sealed.
    const entries = await read(range(lo, hi));
    const gapAtEnd = (entries.at(-1)?.revision ?? lo - 1) < hi;
    if (isFinal(entries, lo, hi, gapAtEnd ? (await read([hi + 1]))[0] ?? null : null, now())) await seal(b, entries);
    return entries.filter((e) => e.revision > after);
  }

  return {
    /** ChangeLog.between: at most `limit` entries in (after, upTo], none more once they weigh `limit`. */
    async between(after: number, upTo: number, limit: number): Promise<ChangeEntry[]> {
      const out: ChangeEntry[] = [];
      let held = 0;
      const copies = new Map<number, Promise<SealedBlock | null>>();
      for (let b = Math.floor((after + 1) / BLOCK); b * BLOCK <= upTo && held < limit && out.length < limit; b++) {
        const hi = b * BLOCK + BLOCK - 1;
        const from = Math.max(after, b * BLOCK - 1);
        let entries: ChangeEntry[];
        if (hi <= upTo) {
          // An entry weighs at least one, so the page needs at least this many more settled blocks (one more when it
          // starts inside one): their copies are asked at once. One never awaited (the page filled) must not go unhandled.
          if (!copies.has(b)) {
            const ahead = Math.min(Math.ceil((limit - held) / BLOCK) + (from >= b * BLOCK ? 1 : 0), Math.floor((upTo + 1) / BLOCK) - b);
            for (let k = b; k < b + Math.max(1, ahead); k++) {
              const copy = sealed.findOne({ _id: k });
              copy.catch(() => undefined);
              copies.set(k, copy);
            }
          }
          entries = await settledBlock(b, await copies.get(b)!, from, limit - held);
        } else {
          entries = await read(range(from + 1, upTo), limit - held);
        }
        for (const e of entries) {
          if (held >= limit || out.length >= limit) break;
          out.push(e);
          held += weightOf(e);
        }
      }
      return out;
    },
  };
}
