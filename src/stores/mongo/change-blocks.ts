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

export interface SealedBlock {
  _id: number;
  entries?: string;
  revisions?: number[];
}
/**
 * A revision claimed as missing for good: a reader inserts it before passing over a final gap or sealing a block
 * without it, so a writer still on its way with that revision (its mark dropped by `heal`, or its clock or stall past
 * GAP_FINAL_MS) gets a duplicate key and commits again under a new revision, instead of landing where no reader looks.
 */
export const VOID = 'void';
type Stored = ChangeEntry & { _id: number };
/** An entry as read from the log: a change, or a void. */
type Read = Omit<ChangeEntry, 'kind'> & { kind: ChangeEntry['kind'] | typeof VOID };
const isVoid = (e: Read) => e.kind === VOID;
const changes = (entries: Read[]) => entries.filter((e): e is ChangeEntry => !isVoid(e));
/** How far past a block a reader looks for the entry that settles a gap at its end (then waits if none). */
const SCAN_AFTER = 4 * PARALLEL;

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

export function changeBlocks(log: Collection<Stored>, sealed: Collection<SealedBlock>, now = () => Date.now()): Pick<ChangeBlocks, 'ranged' | 'between'> {
  return new ChangeBlocks(log, sealed, now);
}

/** The block reader: point reads, gap claims and sealing, over the log and its sealed copies. */
class ChangeBlocks {
  constructor(private readonly log: Collection<Stored>, private readonly sealed: Collection<SealedBlock>, private readonly now: () => number) {}

  /** The entries (voids too) of these revisions that exist, in order, read PARALLEL at a time until they weigh `budget`. */
  private async read(revisions: number[], budget = Infinity, stopAtFirst = false): Promise<Read[]> {
    const out: Read[] = [];
    let held = 0;
    for (let i = 0; i < revisions.length && held < budget && !(stopAtFirst && out.length > 0); i += PARALLEL) {
      const found = await Promise.all(revisions.slice(i, i + PARALLEL).map((r) => this.log.findOne({ _id: r })));
      for (const d of found) {
        if (!d) continue;
        const { _id, ...e } = d;
        out.push({ ...e, revision: _id });
        if (!isVoid(out.at(-1)!)) held += weightOf(out.at(-1) as ChangeEntry);
      }
    }
    return out;
  }

  /**
   * Claims with a void each revision in [lo, hi] missing from `entries` (all of them read) whose next entry (in
   * `entries`, else `next`) is GAP_FINAL_MS old. A claim lost to a write that just landed brings that write in.
   * Returns the entries and whether every gap is now claimed.
   */
  private async claimGaps(entries: Read[], lo: number, hi: number, next: Read | null): Promise<{ entries: Read[]; complete: boolean }> {
    const t = this.now();
    const have = new Set(entries.map((e) => e.revision));
    const following = next ? [...entries, next] : entries;
    const gaps: number[] = [];
    let complete = true;
    for (let r = Math.max(lo, 1), i = 0; r <= hi; r++) {
      if (have.has(r)) continue;
      while (i < following.length && following[i]!.revision < r) i++;
      const after = following[i];
      if (after && t - after.at.getTime() >= GAP_FINAL_MS) gaps.push(r); else complete = false;
    }
    if (gaps.length === 0) return { entries, complete };
    const at = new Date(t);
    const lost = (await Promise.all(gaps.map((r) =>
      this.log.insertOne({ _id: r, revision: r, kind: VOID, at } as unknown as Stored)
        .then(() => null, (e: unknown) => {
          if (isDuplicateKey(e)) return r;
          throw e;
        })
    )))
      .filter((r): r is number => r !== null);
    if (lost.length === 0) return { entries, complete };
    // Another reader's void, or the late write itself: read what won.
    const won = await this.read(lost);
    return { entries: [...entries, ...won].sort((a, b) => a.revision - b.revision), complete: complete && won.every(isVoid) };
  }

  /** The first entry after `hi`, looked for up to `upTo` and at most SCAN_AFTER revisions on (null when none is found). */
  private async firstAfter(hi: number, upTo: number): Promise<Read | null> {
    return (await this.read(range(hi + 1, Math.min(upTo, hi + SCAN_AFTER)), Infinity, true))[0] ?? null;
  }

  private async seal(b: number, entries: ChangeEntry[]): Promise<void> {
    const json = JSON.stringify(entries.map((e) => ({ ...e, at: e.at.getTime() })));
    const doc = json.length <= SEALED_MAX_CHARS ? { _id: b, entries: json } : { _id: b, revisions: entries.map((e) => e.revision) };
    // Another reader sealing the same block wrote the same entries.
    await this.sealed.insertOne(doc).catch((e: unknown) => {
      if (!isDuplicateKey(e)) throw e;
    });
  }

  /** Block `b`'s entries after `after`, the whole block being settled: from its sealed copy, else read, and sealed if final. */
  private async settledBlock(b: number, copy: SealedBlock | null, after: number, budget: number, upTo: number): Promise<ChangeEntry[]> {
    const lo = b * BLOCK;
    const hi = lo + BLOCK - 1;
    if (copy?.entries !== undefined) {
      return (JSON.parse(copy.entries) as Array<ChangeEntry & { at: number }>).filter((e) => e.revision > after).map((e) => ({ ...e, at: new Date(e.at) }));
    }
    if (copy?.revisions) return changes(await this.read(copy.revisions.filter((r) => r > after), budget));
    // Read whole (a follower in the middle of it pays once more than it needs) so that it can be sealed.
    const read0 = await this.read(range(lo, hi));
    const gapAtEnd = (read0.at(-1)?.revision ?? lo - 1) < hi;
    const { entries, complete } = await this.claimGaps(read0, lo, hi, gapAtEnd ? await this.firstAfter(hi, upTo) : null);
    // Every gap claimed by a void: no write can land in this block any more.
    if (complete) await this.seal(b, changes(entries));
    return changes(entries).filter((e) => e.revision > after);
  }

  /**
   * ChangeLog.between on MongoDB, which answers an `_id` range from its index in one query (point reads would be
   * a round trip per revision there): no blocks, final gaps claimed as on FerretDB.
   */
  async ranged(after: number, upTo: number, limit: number): Promise<ChangeEntry[]> {
    const found: Read[] = (await this.log.find({ _id: { $gt: after, $lte: upTo } }).sort({ _id: 1 }).limit(limit).toArray())
      .map(({ _id, ...e }) => ({ ...e, revision: _id }));
    const out: ChangeEntry[] = [];
    let held = 0;
    for (const e of changes((await this.claimGaps(found, after + 1, found.at(-1)?.revision ?? after, null)).entries)) {
      if (held >= limit) break;
      out.push(e);
      held += weightOf(e);
    }
    return out;
  }

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
            const copy = this.sealed.findOne({ _id: k });
            copy.catch(() => undefined);
            copies.set(k, copy);
          }
        }
        entries = await this.settledBlock(b, await copies.get(b)!, from, limit - held, upTo);
      } else {
        // The feed passes over a gap once the entry after it is old: claimed first, so no write lands behind it.
        const tail = await this.read(range(from + 1, upTo), limit - held);
        entries = changes((await this.claimGaps(tail, from + 1, tail.at(-1)?.revision ?? from, null)).entries);
      }
      for (const e of entries) {
        if (held >= limit || out.length >= limit) break;
        out.push(e);
        held += weightOf(e);
      }
    }
    return out;
  }
}
