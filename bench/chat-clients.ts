// The chat bench's sockets, in a process of their own: connect and join, then send at a steady rate and time every
// delivery from the send to its arrival. Prints one JSON line of figures.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';

const { values: a } = parseArgs({ options: {
  socket: { type: 'string' },
  plan: { type: 'string' },
  messages: { type: 'string', default: '1000' },
  rate: { type: 'string', default: '50' },
} });
/** Every socket to open: its token and room. */
const plan = JSON.parse(readFileSync(a.plan!, 'utf8')) as Array<{ token: string; room: string }>;
const now = () => performance.timeOrigin + performance.now();

async function main() {
  const latencies: number[] = [];
  /** Each delivery: which message, and when it arrived. */
  const arrivals: Array<[number, number]> = [];
  const errors: string[] = [];
  const sockets: Array<{ ws: WebSocket; room: string }> = [];
  const t0 = now();
  // Opened and joined a hundred at a time.
  for (let i = 0; i < plan.length; i += 100) {
    await Promise.all(plan.slice(i, i + 100).map(async ({ token, room }) => {
      const ws = new WebSocket(a.socket!, { headers: { authorization: `Bearer ${token}` } });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const joined = new Promise<void>((resolve) => {
        ws.on('message', (data) => {
          const m = JSON.parse(String(data)) as { type: string; message?: { message: string }; code?: string };
          if (m.type === 'joined') resolve();
          else if (m.type === 'message') {
            const at = now();
            const sent = JSON.parse(m.message!.message) as { i: number; t: number };
            latencies.push(at - sent.t);
            arrivals.push([sent.i, at]);
          }
          else if (m.type === 'error') errors.push(m.code ?? '?');
        });
      });
      ws.send(JSON.stringify({ type: 'join', room }));
      await joined;
      sockets.push({ ws, room });
    }));
  }
  const connectMs = now() - t0;
  // Each room's sockets take turns sending: a socket handles its messages in order, and no real user sends 10 a second.
  const senders = new Map<string, WebSocket[]>();
  for (const s of sockets) senders.set(s.room, [...(senders.get(s.room) ?? []), s.ws]);
  const rooms = [...senders.keys()];
  const total = Number(a.messages);
  const gap = 1000 / Number(a.rate);
  const start = now();
  for (let i = 0; i < total; i++) {
    const due = start + i * gap;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const turn = senders.get(rooms[i % rooms.length]!)!;
    turn[Math.floor(i / rooms.length) % turn.length]!.send(JSON.stringify({ type: 'send', room: rooms[i % rooms.length], message: JSON.stringify({ i, t: now() }) }));
  }
  const expected = total * (sockets.length / rooms.length);
  for (let w = 0; w < 100 && latencies.length < expected; w++) await new Promise((r) => setTimeout(r, 100));
  const pctOf = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  };
  const sorted = [...latencies].sort((x, y) => x - y);
  const pct = pctOf(latencies);
  // Fan-out proper: each delivery after the first delivery of the same message (the store write and the sender's hop excluded).
  const first = new Map<number, number>();
  for (const [i, at] of arrivals) first.set(i, Math.min(first.get(i) ?? Infinity, at));
  const spread = pctOf(arrivals.map(([i, at]) => at - first.get(i)!));
  process.stdout.write(
    `${
      JSON.stringify({ sockets: sockets.length, rooms: rooms.length, connectMs, sent: total, expected, delivered: latencies.length, p50: pct(0.5), p95: pct(0.95), p99: pct(0.99),
        max: sorted.at(-1), spread50: spread(0.5), spread99: spread(0.99), errors: errors.length, errorCodes: [...new Set(errors)] })
    }\n`,
  );
  for (const s of sockets) s.ws.terminate();
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
