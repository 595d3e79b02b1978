// Generated hostile input on every registered route over every transport: never a 5xx, always a documented answer
// within a second, and nothing changed. Inputs for routes that could write are made invalid by construction (poisoned
// with a NUL or a `$` key when they would pass validation), so the state taken before equals the state taken after.
import { writeFileSync } from 'node:fs';
import { Metadata } from '@grpc/grpc-js';
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { bytesOf } from '../../src/config.js';
import { MODULE_NAMES } from '../../src/services/config/module-configs.js';
import { CLIENT_GRAPHQL_ROUTES, clientGraphqlRoutes } from '../../src/surfaces/graphql/client-schema.js';
import { grpcBindings } from '../../src/surfaces/grpc/bindings.js';
import { allTools, GLOBAL } from '../../src/surfaces/mcp/tool-groups.js';
import type { Route } from '../../src/surfaces/registry.js';
import { graphqlVerdict, grpcVerdict, httpVerdict, mcpVerdict, socketVerdict, type Verdict } from '../support/hostile/answers.js';
import { hostileFixture, type Fixture } from '../support/hostile/fixture.js';
import { adminGqlCases, adminGqlRequest, CLIENT_FIELDS, clientGqlCases, clientGqlRequest, type ClientField } from '../support/hostile/graphql.js';
import { GRPC_METHOD_NAMES, grpcBytes, grpcCases, grpcDecoded, rawClient } from '../support/hostile/grpc.js';
import { mcpBody, mcpCases } from '../support/hostile/mcp.js';
import { mutating } from '../support/hostile/mutation.js';
import { restCases, restSafe, send } from '../support/hostile/rest.js';
import { OneAtATime, socketFrames } from '../support/hostile/socket.js';
import { shown, Tally, type Call } from '../support/hostile/tally.js';

/**
 * Generated inputs per route and transport (the corpus size). The file runs in two tiers: on the twins with 60 (about 90
 * s on 2 idle cores), and on the real stores with a sample of 12, for what a real MongoDB, Neo4j or Redis refuses that
 * a twin would take. The seed is random unless HOSTILE_SEED is given, so each run tries other inputs.
 */
const RUNS = Number(process.env.HOSTILE_RUNS ?? (process.env.TEST_STORES === 'memory' ? 60 : 12));
const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Calls in flight at once. */
const PARALLEL = 4;
/** How long a call may take before it counts as unanswered (answers over a second are problems already). */
const GIVE_UP_MS = 10_000;
const TEST_MS = 900_000;

let fx: Fixture;
let before: string;
const tally = new Tally();
/** Fewer inputs for each route without credentials (a sample), at least two. */
const UNAUTH_RUNS = Math.max(2, Math.round(RUNS / 5));

/**
 * Stack frames an error records: jest's environment raises it to 100 (for tests' own failures), where the service
 * runs with Node's 10. The corpus has the service make hundreds of thousands of errors (a refused GraphQL document
 * up to 200, deep in graphql-js's visitor), each recording its frames. Restored after.
 */
const jestStackLimit = Error.stackTraceLimit;
beforeAll(async () => {
  Error.stackTraceLimit = 10;
  fx = await hostileFixture();
  before = await fx.fingerprint();
}, 120_000);
afterAll(async () => {
  Error.stackTraceLimit = jestStackLimit;
  await fx?.stop();
});

/** Cases for one route and transport, reproducible from the seed, the route and the transport. */
const sample = <T>(arb: fc.Arbitrary<T>, key: string, n = RUNS) => fc.sample(arb, { numRuns: n, seed: SEED ^ hash(key) });
function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

async function pool<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** Credentials to send: the route's own (admin masterkey or the user's token), or a kind of missing or wrong ones. */
const WRONG = ['none', 'bad-masterkey', 'garbage-bearer', 'other-surface', 'malformed'] as const;
type As = 'ok' | typeof WRONG[number];
function headersFor(r: { surface: string; auth: string }, as: As): Record<string, string> {
  const user = { authorization: `Bearer ${fx.user.token}` };
  const admin = { masterkey: fx.svc.config.MASTER_KEY };
  switch (as) {
    case 'ok':
      return r.auth === 'user' ? user : r.surface === 'admin' ? admin : {};
    case 'none':
      return {};
    case 'bad-masterkey':
      return { masterkey: `${fx.svc.config.MASTER_KEY.slice(0, -1)}x` };
    case 'garbage-bearer':
      return { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.' };
    case 'other-surface':
      return r.surface === 'admin' ? user : admin;
    case 'malformed':
      return { authorization: 'Basic Og==, Bearer' };
  }
}
const asLabel = (r: { auth: string; surface: string }, as: As) => (as === 'ok' ? (r.auth === 'none' ? 'no credentials needed' : r.auth === 'user' ? 'user' : 'admin') : as);

/** A call without the credentials its route needs must never succeed. */
function judged(v: Verdict, auth: string, as: As): Verdict {
  return as !== 'ok' && auth !== 'none' && v.status < 300 && !v.problem ? { ...v, problem: `answered ${v.status} without valid credentials` } : v;
}
/** Inputs a read waits on the index for (checks.settle): a consistency other than minimize_latency, or any revision. */
const mayWait = (text: string) => /at_least_as_fresh|fully_consistent|revision/i.test(text);
const failIfProblems = (transport: string) => {
  const mine = tally.problems.filter((p) => p.transport === transport);
  if (mine.length) {
    process.stderr.write(
      `${transport} problems:\n${mine.slice(0, 40).map((p) => `  ${p.route} as ${p.as} -> ${p.status} in ${p.ms} ms: ${p.answer}\n    input: ${p.input}`).join('\n')}\n`,
    );
  }
  return mine.map((p) => `${p.route} (${p.as}): ${p.answer.slice(0, 160)}`);
};

async function rest(r: Route, as: As, n: number) {
  const base = r.surface === 'admin' ? fx.svc.admin : fx.svc.client;
  const cases = sample(restCases(r, fx.known), `rest ${r.surface} ${r.id} ${as}`, n);
  await pool(cases, async (c) => {
    const req = restSafe(r, c);
    const a = await send(base, req, headersFor(r, as), GIVE_UP_MS);
    const input = () => shown(`${req.method} ${req.path}${req.body ? ` (${req.contentType}) ${req.body.toString('latin1')}` : ''}`);
    const call: Call = { transport: 'rest', route: `${r.surface} ${r.rateKey}`, as: asLabel(r, as), input, writes: mutating(r) };
    const v = a.status === 0 ? { status: 0, problem: a.text } : httpVerdict(r.surface, a.status, a.text, a.retryAfter);
    tally.add(call, judged(v, r.auth, as), a.ms, a.text, mayWait(req.path));
  });
}

describe('hostile input: REST, GraphQL and MCP', () => {
  it('REST: every route of the registry, on its own surface', async () => {
    for (const r of fx.svc.app.registry.all()) await rest(r, 'ok', RUNS);
    expect(failIfProblems('rest')).toEqual([]);
  }, TEST_MS);

  it('GraphQL: every route of both surfaces as its field, and the typed client fields', async () => {
    const post = async (surface: 'admin' | 'client', route: string, body: unknown, as: As, writes: boolean, headers: Record<string, string>) => {
      const text = JSON.stringify(body);
      const a = await send(surface === 'admin' ? fx.svc.admin : fx.svc.client, { method: 'POST', path: '/graphql', body: Buffer.from(text), contentType: 'application/json' },
        headers, GIVE_UP_MS);
      const call: Call = { transport: 'graphql', route: `${surface} ${route}`, as, input: () => shown(body), writes };
      const v = a.status === 0 ? { status: 0, problem: a.text } : graphqlVerdict(surface, a.status, a.text, a.retryAfter);
      tally.add(call, judged(v, 'needed', as === 'ok' ? 'ok' : 'none'), a.ms, a.text, mayWait(text));
    };
    for (const r of fx.svc.app.registry.of('admin')) {
      await pool(sample(adminGqlCases(r, fx.known), `graphql ${r.id}`), async (c) => {
        const req = adminGqlRequest(r, c);
        if (req) await post('admin', r.id, req.body, 'ok', mutating(r), headersFor(r, 'ok'));
        else await post('admin', r.id, { query: `mutation { ${r.id} }` }, 'none', mutating(r), {});
      });
    }
    // The client surface's route fields are built as the admin ones, so the same generated calls apply; always with the
    // user's token (the endpoint wants one), and a mutation with nothing to poison without it.
    const userToken = { authorization: `Bearer ${fx.user.token}` };
    for (const r of clientGraphqlRoutes(fx.svc.app.registry.all())) {
      await pool(sample(adminGqlCases(r, fx.known), `graphql client ${r.id}`), async (c) => {
        const req = adminGqlRequest(r, c);
        if (req) await post('client', r.id, req.body, 'ok', mutating(r), userToken);
        else await post('client', r.id, { query: `mutation { ${r.id} }` }, 'none', mutating(r), {});
      });
    }
    for (const f of Object.keys(CLIENT_FIELDS) as ClientField[]) {
      await pool(sample(clientGqlCases(f, fx.known), `graphql client ${f}`), async (c) => {
        const req = clientGqlRequest(f, c);
        await post('client', `${CLIENT_FIELDS[f].field} (${CLIENT_GRAPHQL_ROUTES[f]})`, req.body, 'ok', CLIENT_FIELDS[f].mutates, { authorization: `Bearer ${fx.user.token}` });
      });
    }
    expect(failIfProblems('graphql')).toEqual([]);
  }, TEST_MS);

  it('MCP: every admin route that is a tool, over raw JSON-RPC', async () => {
    const tools = allTools(fx.svc.app.registry.all(), MODULE_NAMES);
    const groups = [...new Set(tools.map((t) => t.group))].filter((m) => m !== GLOBAL).join(',');
    let id = 1;
    for (const t of tools) {
      await pool(sample(mcpCases(t, fx.known), `mcp ${t.name}`), async (c) => {
        const body = mcpBody(t, c, id++);
        const headers: Record<string, string> = { accept: 'application/json, text/event-stream', ...(body ? { authorization: `Bearer ${fx.adminJwt}` } : {}) };
        const sent = body ?? Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: t.name, arguments: {} } }));
        const a = await send(fx.svc.admin, { method: 'POST', path: `/mcp?modules=${groups}`, body: sent, contentType: 'application/json' }, headers, GIVE_UP_MS);
        const call: Call = { transport: 'mcp', route: t.name, as: body ? 'admin' : 'none', input: () => shown(sent.toString('latin1')), writes: mutating(t.route) };
        const v = a.status === 0 ? { status: 0, problem: a.text } : mcpVerdict(a.status, a.text, a.retryAfter, c.envelope !== 'unknown-tool');
        tally.add(call, v, a.ms, a.text, mayWait(sent.toString()));
      });
    }
    expect(failIfProblems('mcp')).toEqual([]);
  }, TEST_MS);
});

describe('hostile input: gRPC and the socket', () => {
  it('gRPC: every method, typed messages and raw bytes', async () => {
    const client = rawClient(fx.svc.grpc);
    const md = new Metadata();
    md.set('masterkey', fx.svc.config.MASTER_KEY);
    try {
      const bound = grpcBindings(fx.svc.app.registry.all());
      for (const method of GRPC_METHOD_NAMES) {
        const watch = bound[method]!.kind === 'watch';
        await pool(sample(grpcCases(method, fx.known), `grpc ${method}`), async (c) => {
          const bytes = grpcBytes(fx.svc.app.registry, method, c);
          const a = await client.call(method, bytes, md, watch ? 1000 : GIVE_UP_MS);
          const call: Call = {
            transport: 'grpc',
            route: `${method} (${bound[method]!.route})`,
            as: 'admin',
            input: () => shown(c.bytes ? `bytes ${bytes.toString('hex')}` : c.req),
            writes: mutating(fx.svc.app.registry.get('admin', bound[method]!.route)),
          };
          // A Watch past the head follows silently: its deadline passing is the documented behaviour, not a failure.
          const v = watch && a.code === 4 ? { status: 200 } : grpcVerdict(a.code, a.catalog, a.details);
          tally.add(call, v, watch && a.code === 4 ? 0 : a.ms, a.details, mayWait(c.bytes ? grpcDecoded(method, bytes) : JSON.stringify(c.req)));
        });
      }
    } finally {
      client.close();
    }
    expect(failIfProblems('grpc')).toEqual([]);
  }, TEST_MS);

  it('realtime socket: generated messages, each answered in order; the admin feed socket refuses bad upgrades', async () => {
    const decisions = fx.svc.app.registry.get('client', 'post_authorization_decisions');
    const headers = { authorization: `Bearer ${fx.user.token}` };
    const maxMessage = Math.min(bytesOf(fx.svc.config.BODY_LIMIT), bytesOf(fx.svc.config.SOCKET_MAX_MESSAGE));
    let ws = await OneAtATime.open(fx.svc.socket, headers);
    for (const f of sample(socketFrames(decisions, fx.known), 'socket', RUNS * 5)) {
      if (!ws.open) ws = await OneAtATime.open(fx.svc.socket, headers);
      const a = await ws.send(f, GIVE_UP_MS);
      const call: Call = { transport: 'socket', route: 'realtime (post_authorization_decisions)', as: 'user', input: () =>
        shown(f.kind === 'text' ? f.data : `${f.kind} frame of ${f.data.length} bytes`) };
      // Frames the protocol itself refuses close the socket: 1007 text that is not UTF-8, 1009 too large (the oversized
      // frame, or a generated text over the limit: a long hostile string, seed 70354362).
      const tooLarge = f.kind === 'oversized' || Buffer.byteLength(f.data) > maxMessage;
      const expectedClose = f.kind === 'bad-utf8' ? 1007 : tooLarge ? 1009 : null;
      const v: Verdict = a.message ? socketVerdict(a.message)
        : a.closed !== undefined ? (a.closed === expectedClose ? { status: 400 } : { status: 500, problem: `closed with ${a.closed}` })
        : { status: 0, problem: 'no answer' };
      tally.add(call, v, a.ms, JSON.stringify(a.message ?? { closed: a.closed }));
    }
    ws.close();
    const feed = fx.svc.admin.replace('http', 'ws');
    const afters = sample(fc.oneof(fc.constantFrom('0', '-1', '1e3', '%00', 'x', '9'.repeat(20), '', '1&after=2'), fc.string({ maxLength: 10 }).map(encodeURIComponent)), 'feed',
      RUNS);
    for (const [i, after] of afters.entries()) {
      const as: As = i % 3 === 2 ? 'none' : 'ok';
      const started = performance.now();
      const answer = await new Promise<{ status: number; text: string }>((resolve) => {
        const s = new WebSocket(`${feed}/authorization/changes?after=${after}`, { headers: headersFor({ surface: 'admin', auth: 'admin' }, as) });
        s.once('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, text });
            s.terminate();
          });
        });
        s.once('open', () => {
          resolve({ status: 101, text: '' });
          s.close();
        });
        s.once('error', (e) => resolve({ status: 0, text: e.message }));
      });
      const call: Call = { transport: 'socket', route: 'admin feed (get_authorization_changes)', as: asLabel({ surface: 'admin', auth: 'admin' }, as),
        input: shown(`after=${after}`) };
      const v = answer.status === 101 ? { status: 200 } : httpVerdict('admin', answer.status, answer.text, null);
      tally.add(call, judged(v, 'admin', as), Math.round(performance.now() - started), answer.text);
    }
    expect(failIfProblems('socket')).toEqual([]);
  }, TEST_MS);
});

describe('hostile input: without credentials, and the verdict', () => {
  it('without valid credentials: a sample of every route on REST, GraphQL, MCP and gRPC, and socket upgrades', async () => {
    const routes = fx.svc.app.registry.all();
    for (const [i, r] of routes.entries()) await rest(r, WRONG[i % WRONG.length]!, UNAUTH_RUNS);
    for (const [i, r] of routes.entries()) {
      const as = WRONG[(i + 1) % WRONG.length]!;
      const hasField = r.surface === 'admin' || clientGraphqlRoutes([r]).length > 0;
      const graph = hasField ? adminGqlRequest(r, sample(adminGqlCases(r, fx.known), `graphql unauth ${r.id}`, 1)[0]!) : null;
      const body = graph?.body ?? { query: '{ me }' };
      const a = await send(r.surface === 'admin' ? fx.svc.admin : fx.svc.client, { method: 'POST', path: '/graphql', body: Buffer.from(JSON.stringify(body)),
        contentType: 'application/json' }, headersFor(r, as), GIVE_UP_MS);
      const v = graphqlVerdict(r.surface, a.status, a.text, a.retryAfter);
      tally.add({ transport: 'graphql', route: `${r.surface} ${r.id}`, as, input: shown(body) }, judged(v, 'needed', as), a.ms, a.text);
    }
    const tools = allTools(routes, MODULE_NAMES);
    for (const [i, t] of tools.entries()) {
      const as = WRONG[i % WRONG.length]!;
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: t.name, arguments: {} } }));
      const headers = { ...headersFor({ surface: 'admin', auth: 'admin' }, as === 'bad-masterkey' ? 'garbage-bearer' : as), accept: 'application/json, text/event-stream' };
      const a = await send(fx.svc.admin, { method: 'POST', path: '/mcp?modules=core,authorization,database', body, contentType: 'application/json' }, headers, GIVE_UP_MS);
      tally.add({ transport: 'mcp', route: t.name, as, input: shown(body.toString()) }, judged(mcpVerdict(a.status, a.text, a.retryAfter), 'admin', as), a.ms, a.text);
    }
    const client = rawClient(fx.svc.grpc);
    try {
      for (const [i, method] of GRPC_METHOD_NAMES.entries()) {
        const as = WRONG[i % WRONG.length]!;
        const md = new Metadata();
        for (const [k, v] of Object.entries(headersFor({ surface: 'admin', auth: 'admin' }, as))) md.set(k, v);
        const c = sample(grpcCases(method, fx.known), `grpc unauth ${method}`, 1)[0]!;
        const bytes = grpcBytes(fx.svc.app.registry, method, c);
        const a = await client.call(method, bytes, md, GIVE_UP_MS);
        tally.add({ transport: 'grpc', route: method, as, input: shown(c.req) }, judged(grpcVerdict(a.code, a.catalog, a.details), 'admin', as), a.ms, a.details);
      }
    } finally {
      client.close();
    }
    for (const as of WRONG) {
      const started = performance.now();
      const status = await new Promise<{ status: number; text: string }>((resolve) => {
        const s = new WebSocket(fx.svc.socket, { headers: headersFor({ surface: 'client', auth: 'user' }, as) });
        s.once('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        s.once('open', () => {
          resolve({ status: 101, text: '' });
          s.close();
        });
        s.once('error', (e) => resolve({ status: 0, text: e.message }));
      });
      const v = status.status === 101 ? { status: 200 } : httpVerdict('client', status.status, status.text, null);
      tally.add({ transport: 'socket', route: 'realtime upgrade', as, input: as }, judged(v, 'user', as), Math.round(performance.now() - started), status.text);
    }
    expect(
      tally.problems.filter((p) => p.as !== 'admin' && p.as !== 'user' && p.as !== 'ok' && p.as !== 'no credentials needed').map((p) =>
        `${p.transport} ${p.route} (${p.as}): ${p.answer.slice(0, 160)}`
      ),
    ).toEqual([]);
  }, TEST_MS);

  it('changed nothing, and reports the figures', async () => {
    process.stderr.write(`${tally.summary(RUNS, SEED)}\n`);
    // Every problem with its full reproduction, for triage.
    if (process.env.HOSTILE_REPORT) writeFileSync(process.env.HOSTILE_REPORT, JSON.stringify(tally.problems, null, 1));
    const after = await fx.fingerprint();
    expect(after).toEqual(before);
    expect(tally.serverErrors).toBe(0);
  }, 120_000);
});
