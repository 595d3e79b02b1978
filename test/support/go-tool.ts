// Go tools the tests drive (gofakes3, grpcurl): built once from the Go module proxy into .cache/bin.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';

const BIN_DIR = join(ROOT, '.cache', 'bin');

/** The tool's path, built with `go install <module>` when missing (seconds with a warm Go cache; needs Go and the module proxy). */
export function goTool(name: string, module: string): string {
  const bin = join(BIN_DIR, name);
  if (existsSync(bin)) return bin;
  mkdirSync(BIN_DIR, { recursive: true });
  const r = spawnSync('go', ['install', module], { env: { ...process.env, GOBIN: BIN_DIR }, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`go install ${module} failed (exit ${r.status})`);
  return bin;
}

/** grpcurl, the command-line client the README names, pinned. */
export const grpcurl = () => goTool('grpcurl', 'github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3');
