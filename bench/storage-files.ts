// `npm run bench:storage-files`: upload and download throughput of a 50 MB file through the storage routes (local
// provider), against `cp` of the same file on the same disk. Prints figures; asserts nothing.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { ROOT } from '../infra/stack.js';
import { downloadFile, uploadBase64, uploadFile } from '../test/support/multipart.js';
import { say } from './report.js';
import { benchService } from './service.js';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '50' }, runs: { type: 'string', default: '5' } } });
const MB = Number(args.mb);
const RUNS = Number(args.runs);
const run = promisify(execFile);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await work();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

async function main() {
  const work = join(ROOT, '.data', 'bench-storage-files-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const source = join(work, 'source.bin');
  await writeFile(source, randomBytes(MB * 1024 * 1024));
  const svc = await benchService('bench-storage-files', { redis: 26579, mongo: 27417, postgres: 27432, bolt: 27887, http: 27674 });
  const client = `http://127.0.0.1:${svc.port('client')}`;
  const admin = `http://127.0.0.1:${svc.port('admin')}`;
  const json = async (url: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
    (await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    // The files on the same disk as the copies `cp` makes.
    await json(`${admin}/config/storage`, 'PATCH', { dir: join(work, 'store') }, { masterkey: svc.config.MASTER_KEY });
    const account = { email: 'bench@files.example', password: 'correct horse' };
    await json(`${client}/authentication/local/new`, 'POST', account);
    const token = (await json(`${client}/authentication/local`, 'POST', account)).accessToken as string;
    const del = (id: string) => fetch(`${client}/storage/file/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });

    const cp = await timed(async () => {
      await run('cp', [source, join(work, 'copy.bin')]);
      rmSync(join(work, 'copy.bin'));
    });
    const multipart = await timed(async () => {
      const r = await uploadFile(`${client}/storage/upload`, token, source, { name: 'bench.bin' });
      if (r.status !== 201) throw new Error(`upload answered ${r.status}`);
      await del(r.body._id);
    });
    const base64 = await timed(async () => {
      const r = await uploadBase64(`${client}/storage/upload`, token, source, 'bench.bin');
      if (r.status !== 201) throw new Error(`upload answered ${r.status}`);
      await del(r.body._id);
    });
    const kept = await uploadFile(`${client}/storage/upload`, token, source, { name: 'bench.bin' });
    const target = join(work, 'download.bin');
    const download = await timed(async () => {
      const r = await downloadFile(`${client}/storage/file/data/${kept.body._id}`, { authorization: `Bearer ${token}` }, target);
      if (r.status !== 200 || statSync(target).size !== MB * 1024 * 1024) throw new Error(`download answered ${r.status}`);
      rmSync(target);
    });
    const rate = (ms: number) => `${(MB / (ms / 1000)).toFixed(0).padStart(5)} MB/s  ${ms.toFixed(0).padStart(6)} ms`;
    say(`\nstorage, a ${MB} MB file, median of ${RUNS} runs (local provider, same disk)`);
    say(`  cp                              ${rate(cp)}`);
    say(`  upload, multipart               ${rate(multipart)}  ${(multipart / cp).toFixed(2)}x cp`);
    say(`  upload, base64 JSON (${(MB * 4 / 3).toFixed(0)} MB body)  ${rate(base64)}  ${(base64 / cp).toFixed(2)}x cp`);
    say(`  download                        ${rate(download)}  ${(download / cp).toFixed(2)}x cp`);
    say('  goal (issue 20): upload and download within 2x of cp');
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  console.error(e);
  process.exit(1);
});
