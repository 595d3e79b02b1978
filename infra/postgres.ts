// PostgreSQL for the embedded FerretDB: finds or installs Debian's server, creates a private cluster, builds its command.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Log = (line: string) => void;

/** The bin directory of the newest installed PostgreSQL (Debian keeps them off PATH), or undefined. */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0]!, 'bin') : undefined;
}

export function installPostgres(log: Log): void {
  if (postgresBin()) return;
  log('installing postgresql-15 (Debian package; first time only)');
  const cmd = 'apt-get install -y --no-install-recommends postgresql-15 '
    + '|| (apt-get update && apt-get install -y --no-install-recommends postgresql-15)';
  const r = spawnSync('sh', ['-c', cmd], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !postgresBin()) throw new Error('could not install postgresql-15; install it, or set MONGO_URL');
}

/** PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` account the package creates. */
function account(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root, but there is no `postgres` account to run PostgreSQL');
  return { uid, gid: id('-g'), name: 'postgres' };
}

/** Prefixes a command so it runs as the cluster's owner; `setpriv` execs, so signals reach PostgreSQL itself. */
function asOwner(cmd: string, args: string[]): [string, string[]] {
  const owner = account();
  if (!owner) return [cmd, args];
  return ['setpriv', [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--init-groups', '--', cmd, ...args]];
}

const fallbackFor = (wanted: string) => join('/var/lib/authz-postgres', createHash('sha1').update(wanted).digest('hex').slice(0, 16));

/** Deletes a cluster made for `wanted`, wherever it was placed (tests start from an empty one). */
export function removeCluster(wanted: string): void {
  for (const d of [wanted, fallbackFor(wanted)]) rmSync(d, { recursive: true, force: true });
}

/**
 * Where the cluster can live: `wanted`, unless (as root) the `postgres` account cannot reach it, e.g. in a
 * checkout under a private directory. Then a directory of that account's own, named after `wanted`.
 */
function placeFor(wanted: string, log: Log): string {
  if (!account()) return wanted;
  mkdirSync(dirname(wanted), { recursive: true });
  const [cmd, args] = asOwner('sh', ['-c', 'cd "$0"', dirname(wanted)]);
  if (spawnSync(cmd, args).status === 0) return wanted;
  const elsewhere = fallbackFor(wanted);
  log(`the postgres account cannot reach ${dirname(wanted)}; keeping this cluster in ${elsewhere}`);
  return elsewhere;
}

/** Creates the cluster under `wanted` (or where it can live) if it is not there yet; returns the command that serves it on `port`. */
export function postgresCommand(wanted: string, port: number, log: Log): [string, string[]] {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const dir = placeFor(wanted, log);
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const owner = account();
    if (owner) chownSync(dir, owner.uid, owner.gid);
    log(`creating a PostgreSQL cluster in ${dir}`);
    // Local trust only: the server listens on 127.0.0.1 and on no Unix socket.
    const [cmd, args] = asOwner(join(bin, 'initdb'), ['-D', dir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale']);
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) {
      const hint = owner ? ' (every parent directory must be searchable by the postgres account)' : '';
      throw new Error(`initdb failed${hint}: ${r.stderr || r.stdout}`);
    }
  }
  setUp(bin, dir, log);
  return asOwner(join(bin, 'postgres'), ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'shared_buffers=256MB', '-c',
    'max_wal_size=2GB']);
}

const SETUP = join(dirname(fileURLToPath(import.meta.url)), 'postgres-sql', 'ferretdb-gin.sql');

/** Runs the setup SQL in single-user mode (the server is not running yet) when the cluster lacks this version of it. */
function setUp(bin: string, dir: string, log: Log): void {
  const sql = readFileSync(SETUP, 'utf8');
  const stamp = join(dir, 'authz-setup.sha1');
  const version = createHash('sha1').update(sql).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === version) return;
  log("indexing FerretDB's equality filters in PostgreSQL (setup SQL)");
  // -j: a statement ends at a semicolon followed by an empty line, so function bodies pass whole.
  const [cmd, args] = asOwner(join(bin, 'postgres'), ['--single', '-j', '-D', dir, 'postgres']);
  const r = spawnSync(cmd, args, { input: sql, encoding: 'utf8' });
  if (r.status !== 0 || /ERROR:/.test(r.stderr + r.stdout)) throw new Error(`PostgreSQL setup failed: ${r.stderr || r.stdout}`);
  writeFileSync(stamp, version);
}
