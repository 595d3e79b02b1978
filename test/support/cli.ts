// Runs the `authz` command as a user does: a child process on bin/authz.js, with its own environment and stdin.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = resolve(ROOT, 'bin/authz.js');

export interface CliRun { code: number | null; stdout: string; stderr: string }

/**
 * `env` is added to a clean environment (PATH and HOME only, so no AUTHZ_* or profile of the machine leaks in);
 * `onStderr` sees stderr as it arrives (to act once a follower has started).
 */
export function authz(args: string[], opts: { env?: Record<string, string>; input?: string; cwd?: string; onStderr?: (text: string) => void } = {}): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d; });
    child.stderr.on('data', (d: Buffer) => { stderr += d; opts.onStderr?.(stderr); });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
