// The peers' binaries (built once with `go install`, kept under .cache/peers) and a private PostgreSQL for their datastores.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { installPostgres, postgresBin, postgresCommand, removeCluster } from '../../infra/postgres.js';
import { launch, ROOT, stopChild, waitForPort } from '../../infra/stack.js';

export const PEER_BIN = join(ROOT, '.cache', 'peers', 'bin');
export const OPENFGA_VERSION = 'v1.18.1';
export const SPICEDB_VERSION = 'v1.56.2';

const MODULES: Record<string, string> = {
  openfga: `github.com/openfga/openfga/cmd/openfga@${OPENFGA_VERSION}`,
  spicedb: `github.com/authzed/spicedb/cmd/spicedb@${SPICEDB_VERSION}`,
};

/** The path of a peer's binary, building it first if needed; throws with the build's output when it cannot be built. */
export function peerBinary(name: 'openfga' | 'spicedb', log: (l: string) => void): string {
  const bin = join(PEER_BIN, name);
  if (existsSync(bin)) return bin;
  mkdirSync(PEER_BIN, { recursive: true });
  log(`building ${name} with go install ${MODULES[name]} (first time only; a few minutes)`);
  const r = spawnSync('go', ['install', MODULES[name]!], { env: { ...process.env, GOBIN: PEER_BIN }, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`go install ${MODULES[name]} failed: ${(r.stderr || r.stdout).slice(-800)}`);
  return bin;
}

export interface Postgres {
  url(db: string): string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A fresh PostgreSQL cluster on `port` with the named databases, for one peer at a time; `settings` are more
 * `name=value` server settings (`-c`), after the project's own (shared_buffers 256MB, max_wal_size 2GB).
 */
export async function peerPostgres(dir: string, port: number, databases: string[], log: (l: string) => void, settings: string[] = []): Promise<Postgres> {
  installPostgres(log);
  removeCluster(dir);
  const [cmd, args] = postgresCommand(dir, port, log);
  const child: ChildProcess = launch('postgres', cmd, [...args, ...settings.flatMap((s) => ['-c', s])], join(dir, '..', 'logs', `postgres-${port}.log`));
  await waitForPort(port, child, 'postgres', 60_000);
  for (const db of databases) {
    const r = spawnSync(join(postgresBin()!, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', `CREATE DATABASE ${db}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`CREATE DATABASE ${db}: ${r.stderr}`);
  }
  return {
    url: (db) => `postgres://postgres@127.0.0.1:${port}/${db}?sslmode=disable`,
    pid: child.pid!,
    stop: () => stopChild(child, 'SIGINT'),
  };
}

/** Runs a peer's one-off command (a migration) and fails with its output. */
export function runOnce(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${(r.stderr || r.stdout).slice(-800)}`);
}

/** The version a peer binary reports. */
export function peerVersion(bin: string): string {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8' });
  return ((r.stdout || r.stderr).split('\n').find((l) => /v?\d+\.\d+/.test(l)) ?? 'unknown').trim().slice(0, 80);
}
