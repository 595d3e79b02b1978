// OpenFGA under test, on its memory datastore or on PostgreSQL with the caches its production users turn on.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { launch, stopChild, waitForPort } from '../../../infra/stack.js';
import type { Tuple } from '../dataset.js';
import { OPENFGA_VERSION, peerBinary, peerPostgres, runOnce, type Postgres } from '../peers.js';
import { assertFree, call, pool, type Place, type System } from '../system.js';

/**
 * PostgreSQL's connection limit, all of it OpenFGA's: "Running OpenFGA in Production" (openfga.dev/docs/best-practices/
 * running-in-production, Database recommendations) sets OPENFGA_DATASTORE_MAX_OPEN_CONNS to the database's
 * max_connections, divided among the instances (one here), and MAX_IDLE_CONNS high enough not to reopen connections.
 */
const PG_MAX_CONNECTIONS = 100;

// The same model as ours: Team's built-in read (member, owner, owner->read) and Document's read.
const MODEL = {
  schema_version: '1.1',
  type_definitions: [
    { type: 'user' },
    {
      type: 'team',
      relations: {
        member: { this: {} },
        owner: { this: {} },
        read: {
          union: {
            child: [{ computedUserset: { relation: 'member' } }, { computedUserset: { relation: 'owner' } }, {
              tupleToUserset: { tupleset: { relation: 'owner' }, computedUserset: { relation: 'read' } },
            }],
          },
        },
      },
      metadata: { relations: { member: { directly_related_user_types: [{ type: 'user' }] }, owner: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] } } },
    },
    {
      type: 'document',
      relations: {
        owner: { this: {} },
        reader: { this: {} },
        read: {
          union: {
            child: [{ computedUserset: { relation: 'reader' } }, { tupleToUserset: { tupleset: { relation: 'reader' }, computedUserset: { relation: 'read' } } }, {
              computedUserset: { relation: 'owner' },
            }, { tupleToUserset: { tupleset: { relation: 'owner' }, computedUserset: { relation: 'read' } } }],
          },
        },
      },
      metadata: {
        relations: { owner: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] }, reader: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] } },
      },
    },
  ],
};

/** `Type:id` becomes OpenFGA's `type:id`. */
export const fgaObject = (o: string) => `${o.slice(0, o.indexOf(':')).toLowerCase()}${o.slice(o.indexOf(':'))}`;

export function openfga(datastore: 'memory' | 'postgres', log: (l: string) => void, place: Place): System {
  const HTTP = place.base + 20;
  const base = `http://127.0.0.1:${HTTP}`;
  let child: ChildProcess | undefined;
  let pg: Postgres | undefined;
  let store = '';
  let model = '';
  let bin = '';
  return {
    label: datastore === 'memory' ? 'OpenFGA (memory)' : 'OpenFGA (PostgreSQL + caches)',
    // A go-installed binary reports its version as `dev`.
    get version() {
      return bin ? `openfga ${OPENFGA_VERSION}` : 'not built';
    },
    async start() {
      bin = peerBinary('openfga', log);
      await assertFree([HTTP, HTTP + 1, HTTP + 2]);
      // Lists answer in full (the defaults cut them at 1,000 results or 3 s), as ours and SpiceDB do.
      const args = ['run', '--http-addr', `127.0.0.1:${HTTP}`, '--grpc-addr', `127.0.0.1:${HTTP + 1}`, '--metrics-enabled=false', '--playground-enabled=false', '--log-level',
        'warn', '--listObjects-max-results', '0', '--listObjects-deadline', '0s'];
      if (datastore === 'memory') {
        args.push('--datastore-engine', 'memory');
      } else {
        pg = await peerPostgres(join(place.dir, 'openfga-pg'), HTTP + 2, ['openfga'], log, [`max_connections=${PG_MAX_CONNECTIONS}`]);
        runOnce(bin, ['migrate', '--datastore-engine', 'postgres', '--datastore-uri', pg.url('openfga')]);
        // The in-memory caches the same page recommends ("Turn on in-memory caching in Check API"), and the pool above.
        args.push('--datastore-engine', 'postgres', '--datastore-uri', pg.url('openfga'), '--check-query-cache-enabled', '--check-iterator-cache-enabled', '--check-cache-limit',
          '100000', '--list-objects-iterator-cache-enabled', '--cache-controller-enabled', '--datastore-max-open-conns', String(PG_MAX_CONNECTIONS), '--datastore-max-idle-conns',
          String(PG_MAX_CONNECTIONS));
      }
      child = launch('openfga', bin, args, join(place.dir, 'logs', `openfga-${datastore}.log`));
      await waitForPort(HTTP, child, 'openfga', 60_000);
      store = (await call(`${base}/stores`, { body: { name: 'bench' } })).id;
      model = (await call(`${base}/stores/${store}/authorization-models`, { body: MODEL })).authorization_model_id;
    },
    async load(all, progress) {
      const batches: Tuple[][] = [];
      for (let i = 0; i < all.length; i += 100) batches.push(all.slice(i, i + 100));
      let done = 0;
      await pool(batches, 4, async (b) => {
        await call(`${base}/stores/${store}/write`, {
          body: { authorization_model_id: model, writes: { tuple_keys: b.map(([s, r, o]) => ({ user: fgaObject(s), relation: r, object: fgaObject(o) })) } },
        });
        progress(done += b.length);
      });
    },
    settled: async () => undefined,
    target: () => ({ base, headers: {}, check: 'allowed', list: 'openfga-list' }),
    check: (s, p, o) => ({ method: 'POST', path: `/stores/${store}/check`,
      body: JSON.stringify({ authorization_model_id: model, tuple_key: { user: fgaObject(s), relation: p, object: fgaObject(o) } }) }),
    list: (s, p, type) => ({ method: 'POST', path: `/stores/${store}/list-objects`,
      body: JSON.stringify({ authorization_model_id: model, type: type.toLowerCase(), relation: p, user: fgaObject(s) }) }),
    async write([s, r, o]) {
      await call(`${base}/stores/${store}/write`, { body: { authorization_model_id: model, writes: { tuple_keys: [{ user: fgaObject(s), relation: r, object: fgaObject(o) }] } } });
    },
    notes: () => (datastore === 'memory' ? ['memory datastore (its test and development mode), lists uncapped'] : [
      `PostgreSQL ${PG_MAX_CONNECTIONS} connections, all OpenFGA's (--datastore-max-open-conns and --datastore-max-idle-conns ${PG_MAX_CONNECTIONS}), `
      + 'check query and iterator caches, list-objects iterator cache and cache controller on, lists uncapped: as "Running OpenFGA in Production" '
      + '(openfga.dev/docs/best-practices/running-in-production) recommends for the pool and the caches',
    ]),
    pids: () => ({ ...(child?.pid ? { openfga: child.pid } : {}), ...(pg ? { postgres: pg.pid } : {}) }),
    async stop() {
      if (child) await stopChild(child);
      await pg?.stop();
    },
  };
}
