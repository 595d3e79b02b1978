// Ports for child servers: below the ephemeral range, never handed out twice, never one a server holds.
import { createServer, type Server } from 'node:net';
import { freePort, portShare } from '../support/free-port.js';

const listen = (port: number) =>
  new Promise<Server | null>((ok) => {
    const s = createServer();
    s.once('error', () => ok(null));
    s.listen(port, '127.0.0.1', () => ok(s));
  });

it('hands out distinct ports of its share, below the ephemeral range', async () => {
  const { base, size } = portShare();
  const ports = [];
  for (let i = 0; i < 40; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(40);
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(base);
    expect(p).toBeLessThan(Math.min(base + size, 32_768));
  }
});

// Ten left open, of which the first test may have handed out a few already.
it('skips the ports a server holds', async () => {
  const { base, size } = portShare();
  const held: Server[] = [];
  const open: number[] = [];
  for (let p = base; p < base + size; p++) {
    if (open.length < 10 && p % 47 === 0) {
      open.push(p);
      continue;
    }
    const s = await listen(p);
    if (s) held.push(s);
  }
  try {
    const got = new Set<number>();
    for (let i = 0; i < 3; i++) got.add(await freePort());
    expect([...got].every((p) => open.includes(p))).toBe(true);
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
});

it('gives each jest worker its own share', () => {
  const one = portShare({ JEST_WORKER_ID: '1' });
  const two = portShare({ JEST_WORKER_ID: '2' });
  expect(Math.abs(one.base - two.base)).toBeGreaterThanOrEqual(one.size);
});
