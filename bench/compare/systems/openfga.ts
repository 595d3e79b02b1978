// OpenFGA under test, on its memory datastore or on PostgreSQL with the caches its production users turn on.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { launch, ROOT, stopChild, waitForPort } from '../../../infra/stack.js';
import type { Tuple } from '../dataset.js';
import { OPENFGA_VERSION, peerBinary, peerPostgres, runOnce, type Postgres } from '../peers.js';
import { call, pool, type System } from '../system.js';

const HTTP = 28080;

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
        read: { union: { child: [{ computedUserset: { relation: 'member' } }, { computedUserset: { relation: 'owner' } },
          { tupleToUserset: { tupleset: { relation: 'owner' }, computedUserset: { relation: 'read' } } }] } },
      },
      metadata: { relations: { member: { directly_related_user_types: [{ type: 'user' }] },
        owner: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] } } },
    },
    {
      type: 'document',
      relations: {
        owner: { this: {} },
        reader: { this: {} },
        read: { union: { child: [{ computedUserset: { relation: 'reader' } },
          { tupleToUserset: { tupleset: { relation: 'reader' }, computedUserset: { relation: 'read' } } },
          { computedUserset: { relation: 'owner' } },
          { tupleToUserset: { tupleset: { relation: 'owner' }, computedUserset: { relation: 'read' } } }] } },
      },
      metadata: { relations: { owner: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] },
        reader: { directly_related_user_types: [{ type: 'user' }, { type: 'team' }] } } },
    },
  ],
};

/** `Type:id` becomes OpenFGA's `type:id`. */
export const fgaObject = (o: string) => `${o.slice(0, o.indexOf(':')).toLowerCase()}${o.slice(o.indexOf(':'))}`;

export function openfga(datastore: 'memory' | 'postgres', log: (l: string) => void): System {
  const base = `http://127.0.0.1:${HTTP}`;
  let child: ChildProcess | undefined;
  let pg: Postgres | undefined;
  let store = '';
  let model = '';
  let bin = '';
  return {
    label: datastore === 'memory' ? 'OpenFGA (memory)' : 'OpenFGA (PostgreSQL + caches)',
    // A go-installed binary reports its version as `dev`.
    get version() { return bin ? `openfga ${OPENFGA_VERSION}` : 'not built'; },
    async start() {
      bin = peerBinary('openfga', log);
      const args = ['run', '--http-addr', `127.0.0.1:${HTTP}`, '--grpc-addr', `127.0.0.1:${HTTP + 1}`, '--metrics-enabled=false',
        '--playground-enabled=false', '--log-level', 'warn', '--listObjects-max-results', '0', '--listObjects-deadline', '0s'];
      if (datastore === 'memory') {
        args.push('--datastore-engine', 'memory');
      } else {
        pg = await peerPostgres(join(ROOT, '.data', 'bench-peers', 'openfga-pg'), 28432, ['openfga'], log);
        runOnce(bin, ['migrate', '--datastore-engine', 'postgres', '--datastore-uri', pg.url('openfga')]);
        args.push('--datastore-engine', 'postgres', '--datastore-uri', pg.url('openfga'), '--check-query-cache-enabled',
          '--check-iterator-cache-enabled', '--check-cache-limit', '100000', '--list-objects-iterator-cache-enabled', '--cache-controller-enabled');
      }
      child = launch('openfga', bin, args, join(ROOT, '.data', 'bench-peers', 'logs', `openfga-${datastore}.log`));
      await waitForPort(HTTP, child, 'openfga', 60_000);
      store = (await call(`${base}/stores`, { body: { name: 'bench' } })).id;
      model = (await call(`${base}/stores/${store}/authorization-models`, { body: MODEL })).authorization_model_id;
    },
    async load(all, progress) {
      const batches: Tuple[][] = [];
      for (let i = 0; i < all.length; i += 100) batches.push(all.slice(i, i + 100));
      let done = 0;
      await pool(batches, 4, async (b) => {
        await call(`${base}/stores/${store}/write`, { body: { authorization_model_id: model,
          writes: { tuple_keys: b.map(([s, r, o]) => ({ user: fgaObject(s), relation: r, object: fgaObject(o) })) } } });
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
      await call(`${base}/stores/${store}/write`, { body: { authorization_model_id: model,
        writes: { tuple_keys: [{ user: fgaObject(s), relation: r, object: fgaObject(o) }] } } });
    },
    pids: () => ({ ...(child?.pid ? { openfga: child.pid } : {}), ...(pg ? { postgres: pg.pid } : {}) }),
    async stop() {
      if (child) await stopChild(child);
      await pg?.stop();
    },
  };
}
