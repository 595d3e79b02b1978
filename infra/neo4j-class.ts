// Compiles infra/neo4j/Neo4jDev.java once per version of its source, so a Neo4j start does not compile it again.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The folder holding Neo4jDev.class for this version of `source`, compiled against the jars of `lib` when missing.
 * `java Neo4jDev.java` (the source launcher) compiled it at every start: about 3 s of CPU scanning the ~140 MB of
 * jars, per Neo4j start (a test stack's, and each restart of the store-fault test's). Named after the source's hash,
 * so checkouts sharing .cache/ with different sources each get their own; compiled aside and renamed into place, so
 * two starts at once never read half a class.
 */
export function neo4jClassDir(source: string, lib: string, cache: string): string {
  const jars = join(lib, '.pom'); // the jar set's stamp (infra/stack.ts prepare): new jars, a new compile
  const hash = createHash('sha1').update(readFileSync(source)).update(existsSync(jars) ? readFileSync(jars) : '').digest('hex').slice(0, 16);
  const dir = join(cache, 'neo4j-class', hash);
  if (existsSync(join(dir, 'Neo4jDev.class'))) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const r = spawnSync('javac', ['-cp', `${lib}/*`, '-d', tmp, source], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`javac ${source} failed: ${r.stderr || r.error?.message}`);
  }
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  } // another start put it there first
  return dir;
}
