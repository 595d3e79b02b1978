// The load generator, run in its own process so that no system shares a thread with its client: reads a job (JSON file
// named on the command line), runs it closed-loop over keep-alive HTTP, checks every answer and prints figures as JSON.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** How a response body is read into an answer: a decision, or the number of objects a (possibly paged) list returned. */
export type AnswerKind = 'allowed' | 'spicedb-check' | 'ours-list' | 'openfga-list' | 'spicedb-list';

export interface Job {
  base: string;
  /** More than one address of the same system (processes behind one load generator): requests go round robin. */
  bases?: string[];
  headers: Record<string, string>;
  concurrency: number;
  /** Stop after this long even if requests remain (slow systems get fewer requests, not more time). */
  seconds: number;
  answer: AnswerKind;
  /** Cycle through the requests until `seconds` pass (a warm working set) rather than stop at the end. */
  cycle?: boolean;
  requests: Array<{ method: string; path: string; body?: string; expect: boolean | number }>;
}

export interface Figures {
  requests: number;
  seconds: number;
  rate: number;
  p50: number;
  p95: number;
  p99: number;
  wrong: number;
  errors: number;
  firstProblem?: string;
}

function send(agent: http.Agent, base: string, headers: Record<string, string>, method: string, path: string, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, agent, headers: body ? { ...headers, 'content-type': 'application/json' } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs one request (all pages of it for our lists, from one address) and returns the answer it gave. */
async function answer(job: Job, agent: http.Agent, base: string, r: Job['requests'][number]): Promise<boolean | number> {
  const ask = async (path: string) => {
    const { status, text } = await send(agent, base, job.headers, r.method, path, r.body);
    if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
    return text;
  };
  switch (job.answer) {
    case 'allowed':
      return JSON.parse(await ask(r.path)).allowed as boolean;
    case 'spicedb-check':
      return JSON.parse(await ask(r.path)).permissionship === 'PERMISSIONSHIP_HAS_PERMISSION';
    case 'openfga-list':
      return (JSON.parse(await ask(r.path)).objects as unknown[]).length;
    case 'spicedb-list':
      return (await ask(r.path)).split('\n').filter((l) => l.includes('"result"')).length;
    case 'ours-list': {
      let seen = 0;
      for (;;) {
        const page = JSON.parse(await ask(`${r.path}&skip=${seen}&limit=1000`)) as { objects: string[]; count: number };
        seen += page.objects.length;
        if (seen >= page.count || page.objects.length === 0) return seen;
      }
    }
  }
}

export async function run(job: Job): Promise<Figures> {
  const bases = job.bases?.length ? job.bases : [job.base];
  // One agent per address, each with room for every worker: keep-alive connections are not shared between addresses.
  const agents = bases.map(() => new http.Agent({ keepAlive: true, maxSockets: job.concurrency }));
  const lat: number[] = [];
  let wrong = 0;
  let errors = 0;
  let firstProblem: string | undefined;
  let next = 0;
  const t0 = performance.now();
  const deadline = t0 + job.seconds * 1000;
  await Promise.all(Array.from({ length: job.concurrency }, async () => {
    while (performance.now() < deadline && (job.cycle || next < job.requests.length)) {
      const k = next++;
      const r = job.requests[k % job.requests.length]!;
      // Round robin, shifted by one each pass over a cycled set: a request does not keep landing on the same address.
      const b = (k + Math.floor(k / job.requests.length)) % bases.length;
      const t = performance.now();
      try {
        const got = await answer(job, agents[b]!, bases[b]!, r);
        lat.push(performance.now() - t);
        if (got !== r.expect) {
          wrong++;
          firstProblem ??= `${r.method} ${r.path} ${r.body ?? ''}: got ${got}, expected ${r.expect}`;
        }
      } catch (e) {
        errors++;
        firstProblem ??= `${r.method} ${r.path} ${r.body ?? ''}: ${(e as Error).message}`;
      }
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  for (const a of agents) a.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]! : NaN);
  return { requests: lat.length, seconds, rate: lat.length / seconds, p50: q(0.5), p95: q(0.95), p99: q(0.99), wrong, errors, firstProblem };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: loadgen.ts <job.json>');
  const job = JSON.parse(readFileSync(file, 'utf8')) as Job;
  run(job).then((f) => {
    process.stdout.write(`${JSON.stringify(f)}\n`);
    process.exit(0);
  }, (e) => {
    console.error(e);
    process.exit(1);
  });
}
