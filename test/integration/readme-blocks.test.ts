// Runs every code block of README.md, in order, against a service on the test stack: an example that fails as written is a bug.
//
// Rules for README blocks (follow them when you add one):
// - ```sh (or bash) blocks run in bash with -e and pipefail, from the clone's root, in the README's order. Variables are
//   shared: every assignment is exported to the later blocks, sh, ts and js alike. KEY is the service's masterkey;
//   grpcurl is on PATH.
// - Ports: the service listens on the README's defaults (client 3000, admin 3030, socket 3001, gRPC 55152) when they
//   are free, else elsewhere; `127.0.0.1:<default>` and `localhost:<default>` in a block are rewritten to where it is.
// - Output: what a block says it prints is checked. Write it as `→ text` in a comment (`# → 8 passed, 0 failed` in sh,
//   `// → true true` in ts and js), at the end of the line that prints or on a comment line of its own after it: the
//   block's stdout must hold each text in order. `…` stands for any text; a space for any whitespace (newlines too).
// - curl: each answer's status is recorded with its line. A 5xx or no answer fails the block, and so does a 4xx unless
//   the comment of that very command opens with it (`curl … # 403: members read, owners edit`); a command that declares a
//   status must answer it. (test/support/readme-expect.ts reads both conventions.)
// - ```ts and ```js blocks run with tsx as ES modules in the clone (top-level await works; `authz-graph/client` and
//   `authz-graph/grpc` resolve through tsconfig.json's paths), with the shell's variables in process.env. Each runs
//   twice, as a reader runs a script again after editing it: both runs must pass and print what the block says.
// - ```json blocks are data and are not run. A block in any other language, or with none, fails this test.
// - A block that cannot run here (it installs, starts the stack, runs the suite, or waits for a person) is preceded
//   by the line `<!-- not run: <why> -->`; there are at most MAX_NOT_RUN of them.
// - A block that installs or starts servers (npm ci, npm start, npm test, docker compose) is never run: unmarked, it fails.
// - Every block must exit 0 within BLOCK_MS. Files a block writes in the clone are removed after it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/root.js';
import { grpcurl } from '../support/go-tool.js';
import { declaredStatuses, expectedOutputs, missingOutput, unexpectedAnswers, type Answer } from '../support/readme-expect.js';
import { startService, type TestService } from '../support/service.js';

const MAX_NOT_RUN = 6;
const BLOCK_MS = 120_000;
const RUN = new Set(['sh', 'bash', 'ts', 'js']);
const DATA = new Set(['json']);
/** Never run, marked or not: they install, start servers on fixed ports or run the suite, in this very clone. */
const UNSAFE = /\b(?:npm (?:ci|i|install|start|test)\b|npm run (?:serve|test|bench|soak)|docker(?:-compose| compose)|\.ci\/run)/;

interface Block {
  index: number;
  line: number;
  lang: string;
  code: string;
  notRun: string | null;
}

/** The fenced blocks of the README, each with the `not run` mark before it, if any. */
function readmeBlocks(): Block[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks: Block[] = [];
  const fence = /(?:<!--\s*not run:\s*([^>]*?)\s*-->\n)?^```(\S*)\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    const line = text.slice(0, m.index).split('\n').length + (m[1] === undefined ? 0 : 1);
    blocks.push({ index: blocks.length, line, lang: m[2]!, code: m[3]!, notRun: m[1] ?? null });
  }
  return blocks;
}

const blocks = readmeBlocks();
const DEFAULTS = { client: 3000, admin: 3030, socket: 3001, grpc: 55152 } as const;

let svc: TestService;
let ports: Record<number, number>;
let vars: Record<string, string>;
const work = mkdtempSync(join(tmpdir(), 'authz-readme-'));
// In the clone, so imports resolve from its node_modules and tsconfig.json (not .cache: it may be a link elsewhere).
const scripts = join(ROOT, 'test-artifacts', 'readme-blocks');
const curlLog = join(work, 'curl.log');
const ran: number[] = [];

const free = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = createServer().once('error', () => ok(false)).listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });

/**
 * Top-level folders other tests make while a block runs (another jest worker's build, screenshots, stores' data): no
 * README block writes them, so what appears there is not a block's to remove.
 */
const OTHERS = new Set(['dist', 'test-artifacts', '.data', '.cache', 'node_modules', 'coverage']);

/** Untracked files in the clone (ignored ones left out): what a block leaves behind is what it adds here. */
async function untracked(): Promise<Set<string>> {
  const r = await run('git', ['ls-files', '--others', '--exclude-standard', '-z'], process.env as Record<string, string>);
  if (r.code !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  // The clone's top level too, ignored entries included: a block's output file there is removed even if ignored.
  return new Set([...r.stdout.split('\0').filter(Boolean), ...readdirSync(ROOT)]);
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}
/** A child process, asynchronously: the service runs in this process and must keep answering. */
function run(cmd: string, args: string[], env: Record<string, string>, cwd = ROOT): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: BLOCK_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The block as it runs here: the README's default ports replaced by the service's. */
const localized = (code: string) => code.replace(/\b(?:127\.0\.0\.1|localhost):(3000|3030|3001|55152)\b/g, (_, p: string) => `127.0.0.1:${ports[Number(p)]}`);

/** Lines of the shell script before the block's first line. */
const PROLOGUE = 3;

/** Runs a shell block with the variables so far; returns them as the block left them. */
async function shell(block: Block): Promise<Ran> {
  const state = join(work, 'env');
  const script = [
    'set -a', // every assignment is exported, to later blocks and to the ts/js ones
    // Each answer's status and the script line of the curl, for the checks after the block; the block's output is untouched.
    `curl() { command curl -w "%{stderr}%{http_code} \${BASH_LINENO[0]} %{method} %{url_effective}\\n" "$@" 2>>${JSON.stringify(curlLog)}; }`,
    'set -e -o pipefail',
    localized(block.code),
    'set +e',
    `env -0 > ${JSON.stringify(state)}`,
  ].join('\n');
  const r = await run('bash', ['-c', script], vars);
  if (r.code === 0) {
    vars = Object.fromEntries(readFileSync(state, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  }
  return r;
}

async function script(block: Block): Promise<Ran> {
  mkdirSync(scripts, { recursive: true });
  const file = join(scripts, `block-${block.index}.${block.lang}`);
  writeFileSync(file, localized(block.code));
  return run(join(ROOT, 'node_modules', '.bin', 'tsx'), [file], vars);
}

beforeAll(async () => {
  const fixed = (await Promise.all(Object.values(DEFAULTS).map(free))).every(Boolean);
  const on = (fixedPorts: boolean) => {
    const port = (p: number) => (fixedPorts ? String(p) : '0');
    return startService({ CLIENT_PORT: port(DEFAULTS.client), ADMIN_PORT: port(DEFAULTS.admin), SOCKET_PORT: port(DEFAULTS.socket), GRPC_PORT: port(DEFAULTS.grpc) });
  };
  // Another process may take a default port between the look and the bind: then free ports, rewritten in the blocks.
  svc = fixed ? await on(true).catch(() => on(false)) : await on(false);
  const at = (url: string) => Number(new URL(url.replace(/^ws/, 'http')).port);
  ports = { [DEFAULTS.client]: at(svc.client), [DEFAULTS.admin]: at(svc.admin), [DEFAULTS.socket]: at(svc.socket), [DEFAULTS.grpc]: Number(svc.grpc.split(':').pop()) };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_OPTIONS' && !k.startsWith('npm_')) env[k] = v;
  // A profile `authz login` saves goes to a directory of the test's own.
  // grpcurl, as the README's gRPC section has the reader install it (built once from the Go module proxy).
  const bin = join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(grpcurl(), join(bin, 'grpcurl'));
  vars = { ...env, PATH: `${bin}:${env.PATH ?? ''}`, KEY: svc.config.MASTER_KEY, XDG_CONFIG_HOME: join(work, 'config') };
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(work, { recursive: true, force: true });
  rmSync(scripts, { recursive: true, force: true });
});

describe('README.md blocks', () => {
  it('are all in a known language, and few are marked not run', () => {
    const unknown = blocks.filter((b) => !RUN.has(b.lang) && !DATA.has(b.lang)).map((b) => `line ${b.line}: "${b.lang}"`);
    expect(unknown).toEqual([]);
    const marked = blocks.filter((b) => b.notRun !== null);
    expect(marked.length).toBeLessThanOrEqual(MAX_NOT_RUN);
    for (const b of marked) expect([b.line, b.notRun]).toEqual([b.line, expect.stringMatching(/\S{3}/)]); // a reason is given
    expect(blocks.filter((b) => b.notRun === null && RUN.has(b.lang)).length).toBeGreaterThanOrEqual(8);
  });

  for (const block of blocks.filter((b) => b.notRun === null && RUN.has(b.lang))) {
    it(`runs the ${block.lang} block at line ${block.line}`, async () => {
      if (UNSAFE.test(block.code)) throw new Error(`README line ${block.line} installs, starts the stack or runs the suite: mark it <!-- not run: why -->`);
      const before = await untracked();
      writeFileSync(curlLog, '');
      const sh = block.lang === 'sh' || block.lang === 'bash';
      const expected = expectedOutputs(block.code, block.lang);
      for (const pass of sh ? ['run'] : ['run', 'second run']) {
        const r = sh ? await shell(block) : await script(block);
        for (const f of await untracked()) if (!before.has(f) && !OTHERS.has(f.split('/')[0]!)) rmSync(join(ROOT, f), { force: true, recursive: true });
        const said = `README line ${block.line}, ${pass}: exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
        if (r.code !== 0) throw new Error(said);
        const missing = missingOutput(r.stdout, expected);
        if (missing) throw new Error(`README line ${block.line + 1 + missing.line} promises "${missing.text}", not printed (in order)\n${said}`);
      }
      const answers: Answer[] = readFileSync(curlLog, 'utf8').split('\n').flatMap((l) => {
        const m = /^(\d{3}) (\d+) (.*)$/.exec(l);
        return m ? [{ status: Number(m[1]), line: Number(m[2]) - PROLOGUE - 1, request: m[3]! }] : [];
      });
      if (sh && /^\s*[^#\s][^#]*\bcurl\b/m.test(block.code)) expect(answers.length).toBeGreaterThan(0); // the statuses are seen
      // Lines of the block are numbered from the fence: line + 1 + index is the README's.
      const unexpected = unexpectedAnswers(answers, declaredStatuses(block.code)).map((u) => u.replace(/^line (\d+)/, (_, n: string) => `README line ${block.line + Number(n)}`));
      expect({ line: block.line, unexpected }).toEqual({ line: block.line, unexpected: [] });
      ran.push(block.index);
    }, BLOCK_MS + 10_000);
  }

  it('ran every block not marked', () => {
    expect(ran).toEqual(blocks.filter((b) => b.notRun === null && RUN.has(b.lang)).map((b) => b.index));
  });
});
