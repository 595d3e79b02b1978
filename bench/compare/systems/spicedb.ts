// SpiceDB under test, on memdb or PostgreSQL, through its HTTP gateway with the default consistency (minimize_latency).
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { launch, stopChild, waitForPort } from '../../../infra/stack.js';
import type { Tuple } from '../dataset.js';
import { peerBinary, peerPostgres, peerVersion, runOnce, type Postgres } from '../peers.js';
import { assertFree, call, pool, sleep, type Place, type System } from '../system.js';

const KEY = 'benchkey';

/**
 * SpiceDB on PostgreSQL as AuthZed's documentation advises (authzed/docs, app/best-practices/page.mdx and
 * app/spicedb/concepts/datastores/page.mdx):
 * - "Tune Connections to Datastores": the database's connections (max_connections 100) divided by the SpiceDB
 *   instances (one), split between the read and write pools, reads the larger share since this workload reads; each
 *   pool's minimum half its maximum. 60 + 30, leaving 10 for migrations and psql.
 * - "Enable schema watch cache" (--enable-experimental-watchable-schema-cache), which needs PostgreSQL's
 *   track_commit_timestamp on (the datastores page: also what the Watch API needs).
 * - PostgreSQL 15 or newer "for optimal performance": the bench runs Debian's postgresql-15.
 * - The ops/load-testing page: "CREATE is always more performant than TOUCH" on PostgreSQL, so the initial load creates
 *   (the store starts empty); consistency stays minimize_latency, which it says most users run, with the default 5 s
 *   quantization (--datastore-revision-quantization-interval; longer would cache more and show writes later).
 * Not followed: its gRPC API ("Use GRPC When Possible"): every system is driven over HTTP by the same load generator,
 * so SpiceDB answers through its HTTP gateway; and dispatch between nodes, which needs more than one.
 */
const PG_POOLS = { readMax: 60, readMin: 30, writeMax: 30, writeMin: 15 };

// The same model as ours: Team's built-in read (member, owner, owner->read) and Document's read.
const SCHEMA = `
definition user {}
definition team {
  relation member: user
  relation owner: user | team
  permission read = member + owner + owner->read
}
definition document {
  relation owner: user | team
  relation reader: user | team
  permission read = reader + reader->read + owner + owner->read
}`;

const ref = (o: string) => ({ objectType: o.slice(0, o.indexOf(':')).toLowerCase(), objectId: o.slice(o.indexOf(':') + 1) });
const relationship = ([s, r, o]: Tuple) => ({ resource: ref(o), relation: r, subject: { object: ref(s) } });

export function spicedb(datastore: 'memory' | 'postgres', log: (l: string) => void, place: Place): System {
  const HTTP = place.base + 30;
  const base = `http://127.0.0.1:${HTTP}`;
  const headers = { authorization: `Bearer ${KEY}` };
  let child: ChildProcess | undefined;
  let pg: Postgres | undefined;
  let bin = '';
  const writeRels = (tuples: Tuple[], operation: 'OPERATION_CREATE' | 'OPERATION_TOUCH') =>
    call(`${base}/v1/relationships/write`, { headers, body: { updates: tuples.map((t) => ({ operation, relationship: relationship(t) })) } });
  return {
    label: datastore === 'memory' ? 'SpiceDB (memdb)' : 'SpiceDB (PostgreSQL)',
    get version() {
      return bin ? peerVersion(bin) : 'not built';
    },
    async start() {
      bin = peerBinary('spicedb', log);
      await assertFree([HTTP, HTTP + 1, HTTP + 2, HTTP + 4]);
      const args = ['serve', '--grpc-preshared-key', KEY, '--http-enabled', '--http-addr', `127.0.0.1:${HTTP}`, '--grpc-addr', `127.0.0.1:${HTTP + 1}`, '--metrics-addr',
        `127.0.0.1:${HTTP + 2}`, '--dispatch-cluster-enabled=false', '--log-level', 'warn'];
      if (datastore === 'memory') {
        args.push('--datastore-engine', 'memory');
      } else {
        pg = await peerPostgres(join(place.dir, 'spicedb-pg'), HTTP + 4, ['spicedb'], log, ['max_connections=100', 'track_commit_timestamp=on']);
        runOnce(bin, ['datastore', 'migrate', 'head', '--datastore-engine', 'postgres', '--datastore-conn-uri', pg.url('spicedb')]);
        args.push('--datastore-engine', 'postgres', '--datastore-conn-uri', pg.url('spicedb'), '--datastore-conn-pool-read-max-open', String(PG_POOLS.readMax),
          '--datastore-conn-pool-read-min-open', String(PG_POOLS.readMin), '--datastore-conn-pool-write-max-open', String(PG_POOLS.writeMax),
          '--datastore-conn-pool-write-min-open', String(PG_POOLS.writeMin), '--enable-experimental-watchable-schema-cache');
      }
      child = launch('spicedb', bin, args, join(place.dir, 'logs', `spicedb-${datastore}.log`));
      await waitForPort(HTTP, child, 'spicedb', 60_000);
      await call(`${base}/v1/schema/write`, { headers, body: { schema: SCHEMA } });
    },
    async load(all, progress) {
      const batches: Tuple[][] = [];
      for (let i = 0; i < all.length; i += 1000) batches.push(all.slice(i, i + 1000));
      let done = 0;
      await pool(batches, 4, async (b) => {
        await writeRels(b, 'OPERATION_CREATE');
        progress(done += b.length);
      });
    },
    // minimize_latency reads at a revision rounded down to a 5 s quantum: the last tuples are visible after one.
    settled: () => sleep(5_500),
    target: () => ({ base, headers, check: 'spicedb-check', list: 'spicedb-list' }),
    check: (s, p, o) => ({ method: 'POST', path: '/v1/permissions/check', body: JSON.stringify({ resource: ref(o), permission: p, subject: { object: ref(s) } }) }),
    list: (s, p, type) => ({ method: 'POST', path: '/v1/permissions/resources',
      body: JSON.stringify({ resourceObjectType: type.toLowerCase(), permission: p, subject: { object: ref(s) } }) }),
    async write(t) {
      await writeRels([t], 'OPERATION_TOUCH');
    },
    notes: () => (datastore === 'memory' ? ['memdb (its development and testing datastore)'] : [
      `read pool ${PG_POOLS.readMax} (at least ${PG_POOLS.readMin}) and write pool ${PG_POOLS.writeMax} (at least ${PG_POOLS.writeMin}) of PostgreSQL's 100 `
      + 'connections and the watchable schema cache (track_commit_timestamp on), as AuthZed\'s best practices advise ("Tune Connections to '
      + 'Datastores", "Enable schema watch cache"); PostgreSQL 15; the load with CREATE (the load-testing guide: faster than TOUCH on '
      + 'PostgreSQL); minimize_latency with the default 5 s quantization; over its HTTP gateway (the guide prefers gRPC), one node, no dispatch',
    ]),
    pids: () => ({ ...(child?.pid ? { spicedb: child.pid } : {}), ...(pg ? { postgres: pg.pid } : {}) }),
    async stop() {
      if (child) await stopChild(child);
      await pg?.stop();
    },
  };
}
