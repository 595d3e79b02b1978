// The indexer use case: rebuild requests (soft or hard) and the index's status (pending changes, applied revision, rebuild).
import type { ChangeLog } from '../../stores/ports/change-log.js';
import type { IndexStore } from '../../stores/ports/index-store.js';
import type { Rebuilds } from './rebuilds.js';
import type { Revisions } from './revisions.js';

export class Indexer {
  constructor(private readonly deps: { log: ChangeLog; owner: string; rebuilds: Rebuilds; revisions: Revisions; index: IndexStore }) {}

  /** Logged for the record, not pending: rebuilds are tracked on their own, so reads never wait on one. */
  async reconstruct(soft: boolean): Promise<number> {
    const revision = await this.deps.log.commit({ kind: 'reconstruct', op: soft ? 'soft' : 'hard' }, this.deps.owner, { pending: false });
    await this.deps.rebuilds.request(soft, revision);
    return revision;
  }

  async status() {
    const { index, log, revisions, rebuilds } = this.deps;
    const meta = await index.meta();
    return {
      pending: await log.countPending(),
      appliedRevision: await revisions.applied(),
      revision: await revisions.latest(),
      generation: meta.gen,
      building: meta.building,
      ...(await rebuilds.status()),
    };
  }
}
