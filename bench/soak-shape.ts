// The soak's data set: its shape, the checks drawn from it, and seeding it through the admin and client surfaces.
import { call } from './soak-http.js';

export const SHAPE = {
  teams: 200,
  /** Seeded documents `Doc:d*`, ten per team (owner). */
  docs: 2000,
  /** Synthetic users `User:u*`, each a member of one team. */
  users: 600,
  /** Documents `Doc:w*` the soak writes readers to and the sockets watch. */
  watched: 100,
  /** Client users (registered, logging in and renewing, one socket each). */
  clients: 20,
  /**
   * Distinct (subject, document) pairs the checks draw from: a working set, as real traffic has, so the decision
   * caches (Redis, 300 s TTL; in process) reach their steady size during the warm-up instead of growing all along.
   */
  checks: 2000,
  /** Documents a client user's checks name (`Doc:w*` and `Doc:d*` below this), for the same reason. */
  clientDocs: 100,
} as const;

export interface SoakTarget {
  admin: string;
  client: string;
  socket: string;
  grpc: string;
  masterkey: string;
  users: Array<{ id: string; email: string; password: string }>;
}

/** Check pair `i`: even ones are allowed (a document of the user's team), odd ones mostly not. */
export function checkPair(i: number): [string, string] {
  const u = i % SHAPE.users;
  const team = u % SHAPE.teams;
  const doc = i % 2 === 0 ? team + SHAPE.teams * ((i >> 1) % 10) : (i * 7919) % SHAPE.docs;
  return [`User:u${u}`, `Doc:d${doc}`];
}

const PASSWORD = 'soak password';

/** Definitions, teams owning documents, users in teams, and the client users (registered, each in a team). */
export async function seed(admin: string, client: string, masterkey: string, log: (s: string) => void): Promise<SoakTarget['users']> {
  const h = { masterkey };
  const must = async (what: string, send: () => Promise<{ status: number; body: unknown }>) => {
    let r = await send();
    // A 503 (the index did not catch up within 10 s on a busy machine) is documented as safe to retry.
    for (let tries = 1; r.status === 503 && tries < 5; tries++) r = await send();
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  await must('definition', () =>
    call(`${admin}/authorization/resources`, 'POST', h, {
      name: 'Doc',
      relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
      permissions: { read: ['reader', 'owner', 'owner->read'] },
    }));
  for (let t = 0; t < SHAPE.teams; t++) {
    const resources = Array.from({ length: SHAPE.docs / SHAPE.teams }, (_, k) => `Doc:d${t + SHAPE.teams * k}`);
    await must('documents', () => call(`${admin}/authorization/relations/many`, 'POST', h, { subject: `Team:t${t}`, relation: 'owner', resources }));
  }
  // Eight at a time: each single write waits for its index work.
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < SHAPE.users) {
      const u = next++;
      await must('membership', () => call(`${admin}/authorization/relations`, 'POST', h, { subject: `User:u${u}`, relation: 'member', resource: `Team:t${u % SHAPE.teams}` }));
    }
  }));
  const users: SoakTarget['users'] = [];
  for (let c = 0; c < SHAPE.clients; c++) {
    const email = `soak${c}@bench.example`;
    const r = await must('registration', () => call(`${client}/authentication/local/new`, 'POST', {}, { email, password: PASSWORD }));
    const id = r.user._id as string;
    await must('client membership', () => call(`${admin}/authorization/relations`, 'POST', h, { subject: `User:${id}`, relation: 'member', resource: `Team:t${c * 10}` }));
    users.push({ id, email, password: PASSWORD });
  }
  log(`  seeded ${SHAPE.docs} documents owned by ${SHAPE.teams} teams, ${SHAPE.users} users and ${SHAPE.clients} client users in teams`);
  return users;
}
