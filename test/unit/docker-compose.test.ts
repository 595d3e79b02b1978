// docker-compose.yml publishes only the surfaces (admin and gRPC on the host's loopback), runs Neo4j with
// authentication, and keeps the stores unpublished. Read as text by indentation: no YAML parser is a dependency.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/root.js';

const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));

/** The lines under `key:` at `indent` spaces, up to the next key at that indent or less. */
function block(within: string[], key: string, indent: number): string[] {
  const start = within.findIndex((l) => l === `${' '.repeat(indent)}${key}:` || l.startsWith(`${' '.repeat(indent)}${key}: `));
  if (start < 0) return [];
  const rest = within.slice(start + 1);
  const end = rest.findIndex((l) => l.length - l.trimStart().length <= indent);
  return [within[start]!, ...(end < 0 ? rest : rest.slice(0, end))];
}

/** `key: value` lines of a block as a map (values unquoted). */
const entries = (b: string[]) =>
  Object.fromEntries(b.slice(1).map((l) => /^\s*([A-Z0-9_]+): (.*)$/.exec(l)).filter((m) => m !== null)
    .map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')]));

/** The items of a `key:` list written one `- item` a line, or as `[a, b]`. */
function list(b: string[]): string[] {
  const inline = /:\s*\[(.*)\]\s*$/.exec(b[0] ?? '');
  if (inline) return inline[1]!.split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1')).filter(Boolean);
  return b.slice(1).map((l) => l.trim().replace(/^- /, '').replace(/^"(.*)"$/, '$1'));
}

const services = block(lines, 'services', 0);
const service = (name: string) => block(services, name, 2);

it('is indented with spaces, two at a time, with the four services', () => {
  expect(text).not.toMatch(/\t/);
  for (const l of lines) expect([l, (l.length - l.trimStart().length) % 2]).toEqual([l, 0]);
  for (const name of ['mongo', 'neo4j', 'redis', 'service']) expect([name, service(name).length > 1]).toEqual([name, true]);
});

it('publishes the client surface and the socket, and the admin surface and gRPC on the host loopback only', () => {
  expect(list(block(service('service'), 'ports', 4)).sort()).toEqual(['127.0.0.1:3030:3030', '127.0.0.1:55152:55152', '3000:3000', '3001:3001'].sort());
  const env = entries(block(service('service'), 'environment', 4));
  // Inside the container the surfaces listen on all its interfaces, or the published ports would reach nothing.
  expect(env).toMatchObject({ CLIENT_HOST: '0.0.0.0', ADMIN_HOST: '0.0.0.0' });
  expect(env.HOST).toBeUndefined();
});

it('publishes no store', () => {
  for (const name of ['mongo', 'neo4j', 'redis']) {
    expect([name, block(service(name), 'ports', 4)]).toEqual([name, []]);
    expect([name, service(name).some((l) => /network_mode:\s*"?host/.test(l))]).toEqual([name, false]);
  }
});

it('runs Neo4j with authentication, and gives the service the password', () => {
  const neo4j = entries(block(service('neo4j'), 'environment', 4));
  expect(neo4j.NEO4J_AUTH).toMatch(/^neo4j\/\$\{NEO4J_PASSWORD:\?[^}]*\}$/);
  const env = entries(block(service('service'), 'environment', 4));
  expect(env.NEO4J_PASSWORD).toMatch(/^\$\{NEO4J_PASSWORD:\?[^}]*\}$/);
  expect(env.NEO4J_USER ?? 'neo4j').toBe('neo4j');
});
