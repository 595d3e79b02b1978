// Go tools the tests drive (gofakes3, grpcurl): built once per pinned version from the Go module proxy into .cache/bin.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';

const BIN_DIR = join(ROOT, '.cache', 'bin');

/**
 * The tool's path, `<binDir>/<name>@<version>`, built with `go install <module>@<version>` when missing (seconds with
 * a warm Go cache; needs Go and the module proxy). The version is in the file's name so that changing the pin builds
 * the new one instead of reusing whatever an older pin left.
 */
export function goTool(name: string, module: string, binDir = BIN_DIR): string {
  const version = /@([^@/]+)$/.exec(module)?.[1];
  if (!version) throw new Error(`${module}: pin a version (module@vX.Y.Z)`);
  const bin = join(binDir, `${name}@${version}`);
  if (existsSync(bin)) return bin;
  mkdirSync(binDir, { recursive: true });
  // Built apart, then renamed into place: a concurrent test never runs a half-written binary.
  const build = mkdtempSync(join(binDir, `.build-${name}-`));
  try {
    const r = spawnSync('go', ['install', module], { env: { ...process.env, GOBIN: build }, stdio: ['ignore', 'inherit', 'inherit'] });
    const built = readdirSync(build);
    if (r.status !== 0 || built.length !== 1) throw new Error(`go install ${module} failed (exit ${r.status})`);
    renameSync(join(build, built[0]!), bin);
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
  return bin;
}

/** grpcurl, the command-line client the README names, pinned (the README's install line names the same version). */
export const GRPCURL_MODULE = 'github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3';
export const grpcurl = () => goTool('grpcurl', GRPCURL_MODULE);
