// `npm run bench:chat`: 1,000 connected sockets in 20 rooms (sockets in a process of their own), messages sent at a
// steady rate through the socket, and the fan-out latency from a send to each member socket. Prints figures; asserts nothing.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { ROOT } from '../infra/stack.js';
import { say } from './report.js';
import { benchService } from './service.js';

const { values: args } = parseArgs({ options: {
  sockets: { type: 'string', default: '1000' },
  rooms: { type: 'string', default: '20' },
  messages: { type: 'string', default: '1000' },
  /** Messages a second, over all rooms. */
  rate: { type: 'string', default: '50' },
} });

async function main() {
  const svc = await benchService('bench-chat', { redis: 26779, mongo: 27617, postgres: 27632, bolt: 28087, http: 27974 });
  const client = `http://127.0.0.1:${svc.port('client')}`;
  const call = async (method: string, path: string, body: unknown, token?: string) => {
    const r = await fetch(client + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body) });
    return r.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  try {
    const sockets = Number(args.sockets);
    const roomCount = Number(args.rooms);
    // A user holds at most SOCKET_MAX_PER_USER sockets (10): one user per 10 sockets, each room's users together.
    const perUser = svc.config.SOCKET_MAX_PER_USER;
    const userCount = Math.ceil(sockets / perUser);
    const users: Array<{ userId: string; token: string }> = [];
    for (let u = 0; u < userCount; u += 10) {
      users.push(...await Promise.all(Array.from({ length: Math.min(10, userCount - u) }, async (_, k) => {
        const email = `chat${u + k}@bench.example`;
        await call('POST', '/authentication/local/new', { email, password: 'bench password' });
        const login = await call('POST', '/authentication/local', { email, password: 'bench password' });
        return { userId: login.userId as string, token: login.accessToken as string };
      })));
    }
    const roomOf = (u: number) => Math.floor((u * roomCount) / userCount);
    const rooms: string[] = [];
    for (let r = 0; r < roomCount; r++) {
      const members = users.filter((_, u) => roomOf(u) === r);
      const room = await call('POST', '/chat/rooms', { name: `room ${r}`, participants: members.slice(1).map((m) => m.userId) }, members[0]!.token);
      rooms.push(room._id as string);
    }
    const plan = Array.from({ length: sockets }, (_, s) => ({ token: users[Math.floor(s / perUser)]!.token, room: rooms[roomOf(Math.floor(s / perUser))]! }));
    const dir = join(ROOT, '.cache', 'bench-chat');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    const cpu0 = process.cpuUsage();
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'chat-clients.ts'),
      `--socket=ws://127.0.0.1:${svc.port('socket')}/realtime`, `--plan=${join(dir, 'plan.json')}`, `--messages=${args.messages}`, `--rate=${args.rate}`], { cwd: ROOT,
      maxBuffer: 1 << 20 });
    const used = process.cpuUsage(cpu0);
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number | string[]>;
    const f = (x: unknown) => Number(x).toFixed(2);
    say(
      `\nChat fan-out: ${r.sockets} sockets in ${r.rooms} rooms (${Number(r.sockets) / Number(r.rooms)} per room), connected and joined in ${
        (Number(r.connectMs) / 1000).toFixed(1)
      } s`,
    );
    say(`  ${r.sent} messages sent on the socket at ${args.rate}/s: ${r.delivered} of ${r.expected} deliveries, errors ${r.errors} ${JSON.stringify(r.errorCodes)}`);
    say(`  send → delivery: p50 ${f(r.p50)} ms  p95 ${f(r.p95)} ms  p99 ${f(r.p99)} ms  max ${f(r.max)} ms   (goal: p99 ≤ 50 ms)`);
    say(`  fan-out after the first delivery of each message (store write excluded): p50 ${f(r.spread50)} ms  p99 ${f(r.spread99)} ms`);
    say(
      `  service: ${((used.user + used.system) / 1e3 / (performance.now() - t0)).toFixed(2)} CPU cores, RSS ${
        ((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(0)
      } MiB more than before the sockets`,
    );
  } finally {
    await svc.stop();
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
