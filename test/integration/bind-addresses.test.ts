// Where each listener binds: the operator surfaces (admin HTTP, gRPC) on loopback unless ADMIN_HOST says otherwise,
// the application surfaces (client HTTP, realtime socket) on CLIENT_HOST; HOST still sets both when they are unset.
// Besides the addresses the service reports, each port is tried through this machine's non-loopback address.
import { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { startService, type TestService } from '../support/service.js';

/** This machine's first non-loopback IPv4 address, if it has one. */
const outside = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = new Socket();
    s.setTimeout(2000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.connect(port, host);
  });

const hosts = (svc: TestService) => Object.fromEntries(svc.listeners.map((l) => [l.name, l.host]));
const ports = (svc: TestService) => Object.fromEntries(svc.listeners.map((l) => [l.name, l.port]));

/** Which listeners answer through the non-loopback address (all of them on loopback, always). */
async function reachableFromOutside(svc: TestService): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const [name, port] of Object.entries(ports(svc))) {
    expect([name, await reachable('127.0.0.1', port)]).toEqual([name, true]);
    out[name] = await reachable(outside!, port);
  }
  return out;
}

let first = true;
async function withService(env: Record<string, string>, body: (svc: TestService) => Promise<void>) {
  const svc = await startService(env, { wipe: first });
  first = false;
  try {
    await body(svc);
  } finally {
    await svc.stop();
  }
}

it('binds everything to loopback by default', async () => {
  await withService({}, async (svc) => {
    expect(hosts(svc)).toEqual({ admin: '127.0.0.1', client: '127.0.0.1', socket: '127.0.0.1', grpc: '127.0.0.1' });
    if (outside) expect(await reachableFromOutside(svc)).toEqual({ admin: false, client: false, socket: false, grpc: false });
  });
}, 60_000);

it('CLIENT_HOST=0.0.0.0 opens only the client HTTP surface and the realtime socket', async () => {
  await withService({ CLIENT_HOST: '0.0.0.0' }, async (svc) => {
    expect(hosts(svc)).toEqual({ admin: '127.0.0.1', client: '0.0.0.0', socket: '0.0.0.0', grpc: '127.0.0.1' });
    if (outside) expect(await reachableFromOutside(svc)).toEqual({ admin: false, client: true, socket: true, grpc: false });
    // The surfaces answer as before.
    expect((await svc.http('GET', `${svc.client}/openapi.json`, { headers: {} })).status).toBe(200);
    expect((await svc.http('GET', '/live', { headers: {} })).status).toBe(200);
  });
}, 60_000);

it('ADMIN_HOST opens the admin surface and gRPC', async () => {
  await withService({ ADMIN_HOST: '0.0.0.0' }, async (svc) => {
    expect(hosts(svc)).toEqual({ admin: '0.0.0.0', client: '127.0.0.1', socket: '127.0.0.1', grpc: '0.0.0.0' });
    if (outside) expect(await reachableFromOutside(svc)).toEqual({ admin: true, client: false, socket: false, grpc: true });
  });
}, 60_000);

it('HOST, deprecated, still sets both when ADMIN_HOST and CLIENT_HOST are unset, and yields to them', async () => {
  await withService({ HOST: '0.0.0.0', ADMIN_HOST: '127.0.0.1' }, async (svc) => {
    expect(hosts(svc)).toEqual({ admin: '127.0.0.1', client: '0.0.0.0', socket: '0.0.0.0', grpc: '127.0.0.1' });
  });
  await withService({ HOST: '0.0.0.0' }, async (svc) => {
    expect(hosts(svc)).toEqual({ admin: '0.0.0.0', client: '0.0.0.0', socket: '0.0.0.0', grpc: '0.0.0.0' });
  });
}, 60_000);
