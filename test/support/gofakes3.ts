// A real S3-compatible server for tests: gofakes3, built once from the Go module proxy into .cache/bin, files on disk.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { goTool } from './go-tool.js';

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

/** Builds the server when it is missing (about 10 s with a warm Go cache; needs Go and the module proxy). */
export const buildGofakes3 = (): string => goTool('gofakes3', 'github.com/johannesboyne/gofakes3/cmd/gofakes3@v1.2.0');

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`gofakes3 exited with ${child.exitCode}`);
    const up = await new Promise<boolean>((ok) => {
      const c = connect(port, '127.0.0.1', () => {
        c.end();
        ok(true);
      }).on('error', () => ok(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('gofakes3 did not listen within 15 s');
}

/** Starts gofakes3 on a free port with one bucket, its objects in a temporary directory removed on stop. */
export async function startFakeS3(bucket = 'authz-files'): Promise<FakeS3> {
  const bin = buildGofakes3();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'authz-s3-'));
  const child = spawn(bin, ['-host', `127.0.0.1:${port}`, '-backend', 'fs', '-fs.path', dir, '-fs.create', '-initialbucket', bucket, '-quiet'], { stdio: 'ignore' });
  await waitForPort(port, child);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) { // not exited yet (a second stop finds it gone)
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
