// Load generator for `npm run bench:transports`, in its own process: closed loops over REST (keep-alive) or gRPC, JSON on stdout.
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { AuthzGraphClient } from '../src/client/grpc.js';

const { values: a } = parseArgs({ options: {
  kind: { type: 'string' },
  target: { type: 'string' },
  masterkey: { type: 'string' },
  concurrency: { type: 'string', default: '32' },
  seconds: { type: 'string', default: '5' },
  checks: { type: 'string' },
  consistency: { type: 'string', default: '' },
} });
const checks = JSON.parse(a.checks!) as Array<[string, string, string]>;
const C = Number(a.concurrency);
const until = Date.now() + Number(a.seconds) * 1000;
const latencies: number[] = [];
let errors = 0;

async function rest() {
  const agent = new Agent({ keepAlive: true, maxSockets: C });
  const get = (path: string) =>
    new Promise<void>((resolve) => {
      const req = request(`${a.target}${path}`, { agent, headers: { masterkey: a.masterkey! } }, (res) => {
        if (res.statusCode !== 200) errors++;
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const extra = a.consistency ? `&consistency=${a.consistency}` : '';
  await Promise.all(Array.from({ length: C }, async (_, w) => {
    for (let i = w; Date.now() < until; i += C) {
      const [s, p, o] = checks[i % checks.length]!;
      const t = performance.now();
      await get(`/authorization/permissions/can?subject=${s}&permission=${p}&resource=${o}${extra}`);
      latencies.push(performance.now() - t);
    }
  }));
}

async function grpc() {
  const client = new AuthzGraphClient({ address: a.target!, masterkey: a.masterkey });
  const consistency = a.consistency === 'fully_consistent' ? 'FULLY_CONSISTENT' as const : undefined;
  await Promise.all(Array.from({ length: C }, async (_, w) => {
    for (let i = w; Date.now() < until; i += C) {
      const [subject, permission, resource] = checks[i % checks.length]!;
      const t = performance.now();
      await client.can({ subject, permission, resource, consistency }).catch(() => {
        errors++;
      });
      latencies.push(performance.now() - t);
    }
  }));
  client.close();
}

const started = Date.now();
const cpu0 = process.cpuUsage();
await (a.kind === 'grpc' ? grpc() : rest());
const cpu = process.cpuUsage(cpu0);
const seconds = (Date.now() - started) / 1000;
latencies.sort((x, y) => x - y);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
process.stdout.write(JSON.stringify({ rate: latencies.length / seconds, p50: q(0.5), p99: q(0.99), errors, cpu: (cpu.user + cpu.system) / 1e6 / seconds }) + '\n');
