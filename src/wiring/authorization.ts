// The authorization module: definitions, tuples, grants, decisions, the index's appliers and rebuilds, the change feed,
// access views and the decision watch.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { Activity } from '../services/activity.js';
import { AccessViews } from '../services/authorization/access-views.js';
import { Applier } from '../services/authorization/applier.js';
import { ChangeFeed } from '../services/authorization/change-feed.js';
import { Checks } from '../services/authorization/checks.js';
import { DecisionCache } from '../services/authorization/decision-cache.js';
import { DecisionWatch } from '../services/authorization/decision-watch.js';
import { Definitions } from '../services/authorization/definitions.js';
import { IndexBatch } from '../services/authorization/index-batch.js';
import { IndexLeases } from '../services/authorization/index-leases.js';
import { Indexer } from '../services/authorization/indexer.js';
import { LocalDecisions } from '../services/authorization/local-decisions.js';
import { ModelSource } from '../services/authorization/model-source.js';
import { ProjectionDecisions } from '../services/authorization/projection-decisions.js';
import { Rebuilds } from '../services/authorization/rebuilds.js';
import { Reindexing } from '../services/authorization/reindexing.js';
import { RelationList } from '../services/authorization/relation-list.js';
import { SearchCatchUp } from '../services/authorization/search-catch-up.js';
import { Relations } from '../services/authorization/relations.js';
import { Revisions } from '../services/authorization/revisions.js';
import type { Stores } from '../stores/ports/stores.js';
import { authorizationRoutes } from '../surfaces/routes/authorization.js';
import { clientAuthorizationRoutes } from '../surfaces/routes/client-authorization.js';
import type { Module } from './module.js';

/** The index's leases, one per partition (as many as the first process on this Redis fixed), and the applier holding them. */
async function applierOf(stores: Stores, config: Config, log: Logger,
  parts: Pick<ConstructorParameters<typeof Applier>[0], 'heartbeat' | 'batch' | 'models' | 'cache' | 'reindexing'>) {
  const ttl = config.LEASE_TTL_MS;
  const partitions = await stores.indexPartitions(config.INDEX_PARTITIONS);
  if (partitions !== config.INDEX_PARTITIONS) {
    log.warn({ asked: config.INDEX_PARTITIONS, inForce: partitions }, 'INDEX_PARTITIONS was fixed by the first process on this Redis; using that');
  }
  const leases = new IndexLeases(stores.lease('index:structure', ttl), Array.from({ length: partitions }, (_, i) => stores.lease(`index:p${i}`, ttl)));
  const applier = new Applier({ ...parts, log: stores.changeLog, leases, index: stores.index, graph: stores.graph, logger: log, workEpoch: stores.epoch('index-work'),
    definitionsEpoch: stores.epoch('definitions'), concurrency: config.INDEX_CONCURRENCY, leaseTtlMs: ttl });
  return { applier, leases };
}

/** Hard and soft rebuilds: their state and its lease, and the run lease (twice LEASE_TTL_MS: a batch may run long). */
function rebuildsOf(stores: Stores, ttl: number, parts: Pick<ConstructorParameters<typeof Rebuilds>[0], 'heartbeat' | 'applier' | 'batch' | 'models' | 'cache' | 'logger'>) {
  return new Rebuilds({
    ...parts,
    state: stores.rebuildState,
    stateLease: stores.lease('rebuild-state', 5000),
    runLease: stores.lease('rebuild', ttl * 2),
    log: stores.changeLog,
    store: stores.authz,
    graph: stores.graph,
    index: stores.index,
  });
}

/** An index in an older format had its nodes dropped at start: the hard rebuild that builds the new one, unless one is under way. */
async function rebuildMigrated(rebuilds: Rebuilds, indexer: Indexer, log: Logger) {
  const st = await rebuilds.status();
  const pending = (st.rebuild && !st.rebuild.soft) || (st.rebuildRequested && !st.rebuildRequested.soft);
  log.warn(`the index is in an older format: its nodes were dropped and ${pending ? 'the hard rebuild under way builds' : 'a hard rebuild is requested to build'} `
    + 'the new one; permissions inherited through arrows are denied until it switches');
  if (!pending) await indexer.reconstruct(false);
}

export async function authorizationModule(stores: Stores, config: Config, log: Logger) {
  const { authz: store, index, graph, changeLog } = stores;
  // A dead process's claims (its leases, its heartbeat) lapse after LEASE_TTL_MS; its heartbeat sooner than its leases.
  const ttl = config.LEASE_TTL_MS;
  const heartbeat = stores.heartbeat(Math.round((ttl * 2) / 3));
  await index.meta();
  // A store indexed by an older version: its index nodes are dropped and the flats rebuilt (below, once wired).
  const migrated = await index.migrate();
  const models = new ModelSource(store, stores.epoch('definitions'));
  const decisions = new LocalDecisions(config.LOCAL_DECISIONS);
  const revisions = new Revisions(changeLog, config.FRESHNESS_WAIT_MS);
  // Every invalidation, from this process's index batches or the others' through the bus, reaches the local
  // decisions, the decision watch and the change feed's followers.
  const activity = new Activity();
  let watch: DecisionWatch | null = null;
  const reindexing = new Reindexing(stores.reindexState, () => models.invalidate());
  const bus = stores.bus((inv) => {
    reindexing.onInvalidation(inv);
    decisions.invalidate(inv.keys, inv.structure);
    watch?.onInvalidation(inv);
    activity.notify();
  }, () => {
    decisions.reset();
    watch?.onReset();
    void reindexing.refresh().catch(() => undefined);
  });
  decisions.trustWhile(() => bus.trusted());
  reindexing.attach(bus);
  await bus.start();
  // Re-indexes begun before this process started (or while it was away) are answered from the projection too.
  await reindexing.refresh().catch((e: Error) => log.warn({ err: e.message }, 'could not read the pending re-indexes; retrying'));
  const cache = new DecisionCache(stores.decisionStore, { decisions, bus });
  const batch = new IndexBatch(store, graph, index, stores.hints);
  const { applier, leases } = await applierOf(stores, config, log, { heartbeat, batch, models, cache, reindexing });
  const rebuilds = rebuildsOf(stores, config.LEASE_TTL_MS, { heartbeat, applier, batch, models, cache, logger: log });
  const definitions = new Definitions(store, models, changeLog, applier, reindexing, stores.schemas);
  await definitions.seedBuiltins();
  const relations = new Relations(store, applier, models, stores.hints);
  const checks = new Checks(index, graph, models, cache, revisions, config.LIST_WHOLE, { reindexing, projection: new ProjectionDecisions(graph) });
  watch = new DecisionWatch(checks, revisions, log);
  const indexer = new Indexer({ log: changeLog, owner: heartbeat.owner, rebuilds, revisions, index });
  if (migrated) await rebuildMigrated(rebuilds, indexer, log);

  // A batch waits at most 2 s for the units in hand to finish, then the next pass tries again.
  const searchCatchUp = new SearchCatchUp(stores.tupleListing, (work, insist) => leases.whileAllHeld(work, 2000, insist), log);

  const module: Module = {
    name: 'authorization',
    routes: [
      ...authorizationRoutes({
        definitions,
        relations,
        relationList: new RelationList(stores.tupleListing, store),
        checks,
        indexer,
        feed: new ChangeFeed(changeLog, revisions),
        views: new AccessViews(stores.accessViews, checks, revisions),
      }),
      ...clientAuthorizationRoutes({ checks, revisions }),
    ],
    start() {
      applier.start();
      rebuilds.start();
      reindexing.start();
      searchCatchUp.start();
    },
    async stop() {
      await watch?.stop();
      reindexing.stop();
      await searchCatchUp.stop();
      await rebuilds.stop();
      await applier.stop();
      await bus.stop();
    },
  };
  return { module, models, revisions, definitions, relations, checks, watch, activity, changeLog, applier };
}
