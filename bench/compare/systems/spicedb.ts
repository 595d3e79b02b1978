// SpiceDB under test, on memdb or PostgreSQL, through its HTTP gateway with the default consistency (minimize_latency).
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { launch, ROOT, stopChild, waitForPort } from '../../../infra/stack.js';
import type { Tuple } from '../dataset.js';
import { peerBinary, peerPostgres, peerVersion, runOnce, type Postgres } from '../peers.js';
import { call, pool, sleep, type System } from '../system.js';

const HTTP = 28443;
const KEY = 'benchkey';

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

export function spicedb(datastore: 'memory' | 'postgres', log: (l: string) => void): System {
  const base = `http://127.0.0.1:${HTTP}`;
  const headers = { authorization: `Bearer ${KEY}` };
  let child: ChildProcess | undefined;
  let pg: Postgres | undefined;
  let bin = '';
  const touch = (tuples: Tuple[]) => call(`${base}/v1/relationships/write`, { headers,
    body: { updates: tuples.map((t) => ({ operation: 'OPERATION_TOUCH', relationship: relationship(t) })) } });
  return {
    label: datastore === 'memory' ? 'SpiceDB (memdb)' : 'SpiceDB (PostgreSQL)',
    get version() { return bin ? peerVersion(bin) : 'not built'; },
    async start() {
      bin = peerBinary('spicedb', log);
      const args = ['serve', '--grpc-preshared-key', KEY, '--http-enabled', '--http-addr', `127.0.0.1:${HTTP}`,
        '--grpc-addr', `127.0.0.1:${HTTP + 1}`, '--metrics-addr', `127.0.0.1:${HTTP + 2}`, '--dispatch-cluster-enabled=false', '--log-level', 'warn'];
      if (datastore === 'memory') {
        args.push('--datastore-engine', 'memory');
      } else {
        pg = await peerPostgres(join(ROOT, '.data', 'bench-peers', 'spicedb-pg'), 28532, ['spicedb'], log);
        runOnce(bin, ['datastore', 'migrate', 'head', '--datastore-engine', 'postgres', '--datastore-conn-uri', pg.url('spicedb')]);
        args.push('--datastore-engine', 'postgres', '--datastore-conn-uri', pg.url('spicedb'));
      }
      child = launch('spicedb', bin, args, join(ROOT, '.data', 'bench-peers', 'logs', `spicedb-${datastore}.log`));
      await waitForPort(HTTP, child, 'spicedb', 60_000);
      await call(`${base}/v1/schema/write`, { headers, body: { schema: SCHEMA } });
    },
    async load(all, progress) {
      const batches: Tuple[][] = [];
      for (let i = 0; i < all.length; i += 1000) batches.push(all.slice(i, i + 1000));
      let done = 0;
      await pool(batches, 4, async (b) => { await touch(b); progress(done += b.length); });
    },
    // minimize_latency reads at a revision rounded down to a 5 s quantum: the last tuples are visible after one.
    settled: () => sleep(5_500),
    target: () => ({ base, headers, check: 'spicedb-check', list: 'spicedb-list' }),
    check: (s, p, o) => ({ method: 'POST', path: '/v1/permissions/check',
      body: JSON.stringify({ resource: ref(o), permission: p, subject: { object: ref(s) } }) }),
    list: (s, p, type) => ({ method: 'POST', path: '/v1/permissions/resources',
      body: JSON.stringify({ resourceObjectType: type.toLowerCase(), permission: p, subject: { object: ref(s) } }) }),
    async write(t) { await touch([t]); },
    pids: () => ({ ...(child?.pid ? { spicedb: child.pid } : {}), ...(pg ? { postgres: pg.pid } : {}) }),
    async stop() {
      if (child) await stopChild(child);
      await pg?.stop();
    },
  };
}
