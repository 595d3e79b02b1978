// The soak's mixed load: its operations, their weights, and the state that keeps the data set steady (writes and deletes balance).
import { AuthzGraphClient } from '../src/client/grpc.js';
import { call, type Reply } from './soak-http.js';
import { SocketPool } from './soak-sockets.js';
import { SHAPE, checkPair, type SoakTarget } from './soak-shape.js';

export interface Result {
  route: string;
  status: string;
}

interface ClientUser {
  id: string;
  email: string;
  password: string;
  access: string;
  refresh: string;
  busy: boolean;
}

const rand = (n: number) => Math.floor(Math.random() * n);
const ok = (route: string, r: Reply, good: number[] = [200]): Result => ({ route,
  status: good.includes(r.status) ? 'ok' : r.status === 0 ? `network ${r.body?.error}` : String(r.status) });

/** A GraphQL reply is an error when its status is not 200 or it carries errors (then named by their code). */
const gqlResult = (route: string, r: Reply): Result => (r.status === 200 && !r.body?.errors ? { route, status: 'ok' }
  : r.body?.errors ? { route, status: `${r.status} ${r.body.errors[0]?.extensions?.code}` } : ok(route, r));

/**
 * Tuples the soak wrote and may delete, oldest first. Deletes run a little more often than tuples are added and
 * stop at LIVE_FLOOR, so the data set holds the seed plus about LIVE_FLOOR tuples however long the soak runs.
 */
export const LIVE_FLOOR = 300;

/** Calls per 100 of each kind. */
export const WEIGHTS = {
  'GET /authorization/permissions/can': 26,
  'gRPC Can': 5,
  'GET /authorization/check (client)': 10,
  'GET /authorization/permissions/objects': 7,
  'GET /authorization/permissions/subjects': 2,
  'POST /authorization/relations': 6,
  'POST /authorization/relations/many': 1,
  // 6 single writes and 1 × 5 from /relations/many add 11 tuples per 100 calls; 12 deletes remove them (down to LIVE_FLOOR).
  'DELETE /authorization/relations/:id': 12,
  'POST /graphql (client)': 6,
  'POST /graphql (admin)': 4,
  'POST /authentication/local': 0.5,
  'POST /authentication/renew': 1.5,
  'socket subscribe/unsubscribe': 8,
  'socket reconnect': 0.5,
} as const;

export class Mix {
  private readonly admin: Record<string, string>;
  private readonly grpc: AuthzGraphClient;
  private readonly users: ClientUser[] = [];
  readonly sockets: SocketPool;
  private readonly live: Array<{ id: string; key: string }> = [];
  private readonly liveKeys = new Set<string>();
  private serial = 0;
  /** New document ids for /relations/many: applications create documents and delete them, they do not reuse ids. */
  private newDoc = 0;

  constructor(private readonly t: SoakTarget) {
    this.admin = { masterkey: t.masterkey };
    this.grpc = new AuthzGraphClient({ address: t.grpc, masterkey: t.masterkey });
    this.sockets = new SocketPool(t.socket, () => `Doc:w${rand(SHAPE.watched)}`);
    this.newDoc = Date.now();
  }

  /** Logs every client user in and opens its socket. */
  async start(): Promise<void> {
    for (const u of this.t.users) {
      const r = await call(`${this.t.client}/authentication/local`, 'POST', {}, { email: u.email, password: u.password });
      if (r.status !== 200) throw new Error(`login of ${u.email} failed: ${r.status} ${JSON.stringify(r.body)}`);
      const user = { ...u, access: r.body.accessToken as string, refresh: r.body.refreshToken as string, busy: false };
      this.users.push(user);
      await this.sockets.open(user);
    }
  }

  stop(): void {
    this.sockets.close();
    this.grpc.close();
  }

  /** [route, operation]; an operation that cannot run now (nothing to delete, every user busy) runs a check instead. */
  readonly ops: Array<[keyof typeof WEIGHTS, () => Promise<Result>]> = [
    ['GET /authorization/permissions/can', () => this.can()],
    ['gRPC Can', () => this.grpcCan()],
    ['GET /authorization/check (client)', () => this.clientCheck()],
    ['GET /authorization/permissions/objects', () => this.objects()],
    ['GET /authorization/permissions/subjects', () => this.subjects()],
    ['POST /authorization/relations', () => this.write()],
    ['POST /authorization/relations/many', () => this.many()],
    ['DELETE /authorization/relations/:id', () => this.remove()],
    ['POST /graphql (client)', () => this.gqlClient()],
    ['POST /graphql (admin)', () => this.gqlAdmin()],
    ['POST /authentication/local', () => this.login()],
    ['POST /authentication/renew', () => this.renew()],
    ['socket subscribe/unsubscribe', async () => (await this.sockets.churnSubscriptions(this.serial++)) ?? this.can()],
    ['socket reconnect', async () => (await this.sockets.reconnect()) ?? this.can()],
  ];
  private readonly total = Object.values(WEIGHTS).reduce((a, w) => a + w, 0);

  /** One operation drawn by weight. */
  pick(): () => Promise<Result> {
    let x = Math.random() * this.total;
    for (const [route, op] of this.ops) if ((x -= WEIGHTS[route]) < 0) return op;
    return this.ops[0]![1];
  }

  private async can(): Promise<Result> {
    const [s, o] = checkPair(rand(SHAPE.checks));
    const r = await call(`${this.t.admin}/authorization/permissions/can?subject=${s}&permission=read&resource=${o}`, 'GET', this.admin);
    return ok('GET /authorization/permissions/can', r);
  }

  private async grpcCan(): Promise<Result> {
    const [subject, resource] = checkPair(rand(SHAPE.checks));
    try {
      await this.grpc.can({ subject, permission: 'read', resource });
      return { route: 'gRPC Can', status: 'ok' };
    } catch (e) {
      return { route: 'gRPC Can', status: `grpc ${(e as { grpcCode?: number }).grpcCode ?? (e as Error).message}` };
    }
  }

  private user(): ClientUser {
    return this.users[rand(this.users.length)]!;
  }

  private async clientCheck(): Promise<Result> {
    const resource = Math.random() < 0.5 ? `Doc:w${rand(SHAPE.clientDocs)}` : `Doc:d${rand(SHAPE.clientDocs)}`;
    const r = await call(`${this.t.client}/authorization/check?action=read&resource=${resource}`, 'GET', { authorization: `Bearer ${this.user().access}` });
    return ok('GET /authorization/check (client)', r);
  }

  private async objects(): Promise<Result> {
    const r = await call(`${this.t.admin}/authorization/permissions/objects?subject=User:u${rand(SHAPE.users)}&permission=read&resourceType=Doc&limit=100`, 'GET', this.admin);
    return ok('GET /authorization/permissions/objects', r);
  }

  private async subjects(): Promise<Result> {
    const r = await call(`${this.t.admin}/authorization/permissions/subjects?permission=read&resource=Doc:d${rand(SHAPE.docs)}&subjectType=User`, 'GET', this.admin);
    return ok('GET /authorization/permissions/subjects', r);
  }

  /** A tuple not live yet: a client user reading a watched document (its socket may hear the flip), another user, or a membership. */
  private slot(): [string, string, string] | undefined {
    for (let tries = 0; tries < 20; tries++) {
      const x = Math.random();
      const t: [string, string, string] = x < 0.4 ? [`User:${this.user().id}`, 'reader', `Doc:w${rand(SHAPE.watched)}`]
        : x < 0.7 ? [`User:u${rand(SHAPE.users)}`, 'reader', `Doc:w${rand(SHAPE.watched)}`]
        : [`User:x${rand(1000)}`, 'member', `Team:t${rand(SHAPE.teams)}`];
      if (!this.liveKeys.has(t.join('|'))) return t;
    }
    return undefined;
  }

  private remember(id: string, key: string): void {
    this.live.push({ id, key });
    this.liveKeys.add(key);
  }

  private async write(): Promise<Result> {
    const slot = this.slot();
    if (!slot) return this.can();
    const key = slot.join('|');
    this.liveKeys.add(key); // reserved while in flight
    const [subject, relation, resource] = slot;
    const r = await call(`${this.t.admin}/authorization/relations`, 'POST', this.admin, { subject, relation, resource });
    this.liveKeys.delete(key);
    if (r.status === 201 || r.status === 200) this.remember(r.body._id as string, key);
    // 200: the tuple was stored already (a write of the ramp, whose load generator did not delete what it wrote).
    return ok('POST /authorization/relations', r, [201, 200]);
  }

  private async many(): Promise<Result> {
    const team = `Team:t${rand(SHAPE.teams)}`;
    const resources = Array.from({ length: 5 }, () => `Doc:n${this.newDoc++}`);
    const r = await call(`${this.t.admin}/authorization/relations/many`, 'POST', this.admin, { subject: team, relation: 'owner', resources });
    if (r.status === 200 || r.status === 201) {
      for (const rel of r.body.relations as Array<{ _id: string; resource: string }>) this.remember(rel._id, `${team}|owner|${rel.resource}`);
    }
    return ok('POST /authorization/relations/many', r, [200, 201]);
  }

  private async remove(): Promise<Result> {
    if (this.live.length <= LIVE_FLOOR) return this.can();
    const { id, key } = this.live.shift()!;
    this.liveKeys.add(key); // still reserved until the delete answers, so no write races it
    const r = await call(`${this.t.admin}/authorization/relations/${encodeURIComponent(id)}`, 'DELETE', this.admin);
    this.liveKeys.delete(key);
    return ok('DELETE /authorization/relations/:id', r);
  }

  private async gqlClient(): Promise<Result> {
    const r = await call(`${this.t.client}/graphql`, 'POST', { authorization: `Bearer ${this.user().access}` }, {
      query: 'query ($r: String!) { authorizationCheck(action: "read", resource: $r) me }',
      variables: { r: `Doc:w${rand(SHAPE.clientDocs)}` },
    });
    return gqlResult('POST /graphql (client)', r);
  }

  private async gqlAdmin(): Promise<Result> {
    const [s, o] = checkPair(rand(SHAPE.checks));
    const r = await call(`${this.t.admin}/graphql`, 'POST', this.admin, {
      query: 'query ($s: JSON, $o: JSON) { get_authorization_permissions_can(subject: $s, permission: "read", resource: $o) }',
      variables: { s, o },
    });
    return gqlResult('POST /graphql (admin)', r);
  }

  /** A user with no login or renewal in flight: two renewals racing with one refresh token would revoke the login (by design). */
  private idle(): ClientUser | undefined {
    const start = rand(this.users.length);
    for (let k = 0; k < this.users.length; k++) {
      const u = this.users[(start + k) % this.users.length]!;
      if (!u.busy) return u;
    }
    return undefined;
  }

  private async login(): Promise<Result> {
    const u = this.idle();
    if (!u) return this.can();
    u.busy = true;
    const r = await call(`${this.t.client}/authentication/local`, 'POST', {}, { email: u.email, password: u.password });
    if (r.status === 200) {
      u.access = r.body.accessToken;
      u.refresh = r.body.refreshToken;
    }
    u.busy = false;
    return ok('POST /authentication/local', r);
  }

  private async renew(): Promise<Result> {
    const u = this.idle();
    if (!u) return this.can();
    u.busy = true;
    const r = await call(`${this.t.client}/authentication/renew`, 'POST', {}, { refreshToken: u.refresh });
    if (r.status === 200) {
      u.access = r.body.accessToken;
      u.refresh = r.body.refreshToken;
    }
    u.busy = false;
    return ok('POST /authentication/renew', r);
  }
}
