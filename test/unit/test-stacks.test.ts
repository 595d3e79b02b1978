// The suite's stacks: each jest worker gets a stack of its own, on ports of its own.
import { communicationsFaultRedisPort, faultStackPorts, stackCount, stackDataName, stackPorts, STACKS_ENV, useWorkerStack } from '../support/test-stacks.js';

const stacks = [0, 1].map((i) => ({ MONGO_URL: `mongodb://m${i}/authz`, NEO4J_URI: `bolt://n${i}`, REDIS_URL: `redis://r${i}` }));

it('gives each worker its own stack, wrapping round when there are more workers than stacks', () => {
  const seen = [1, 2, 3].map((worker) => {
    const env: NodeJS.ProcessEnv = { [STACKS_ENV]: JSON.stringify(stacks), JEST_WORKER_ID: String(worker) };
    useWorkerStack(env);
    return [env.MONGO_URL, env.NEO4J_URI, env.REDIS_URL];
  });
  expect(seen).toEqual([
    ['mongodb://m0/authz', 'bolt://n0', 'redis://r0'],
    ['mongodb://m1/authz', 'bolt://n1', 'redis://r1'],
    ['mongodb://m0/authz', 'bolt://n0', 'redis://r0'],
  ]);
});

it('leaves the environment alone when no stack was started (the fast tier)', () => {
  const env: NodeJS.ProcessEnv = { JEST_WORKER_ID: '2', MONGO_URL: 'mongodb://given/x' };
  useWorkerStack(env);
  expect(env.MONGO_URL).toBe('mongodb://given/x');
});

it("puts every stack on ports no other stack uses, for any two checkouts' offsets, moved as a whole by TEST_PORT_OFFSET", () => {
  const offsets = Array.from({ length: 30 }, (_, i) => String(i * 100));
  const ports = offsets.flatMap((
    o,
  ) => [...[0, 1, 2, 3, 4, 5, 6, 7].flatMap((i) => Object.values(stackPorts(i, { TEST_PORT_OFFSET: o }))), ...Object.values(faultStackPorts({ TEST_PORT_OFFSET: o })),
    communicationsFaultRedisPort({ TEST_PORT_OFFSET: o })]
  );
  expect(new Set(ports).size).toBe(ports.length);
  expect(Math.max(...ports)).toBeLessThan(32768);
  expect(stackPorts(1, { TEST_PORT_OFFSET: '100' }).redis).toBe(stackPorts(1, {}).redis + 100);
  for (const bad of ['x', '50', '3000', '-100']) expect(() => stackPorts(0, { TEST_PORT_OFFSET: bad })).toThrow(/TEST_PORT_OFFSET/);
});

it('starts as many stacks as workers unless TEST_STACKS says otherwise, and refuses nonsense', () => {
  expect(stackCount({ JEST_STACK_WORKERS: '2' })).toBe(2);
  expect(stackCount({ JEST_STACK_WORKERS: '2', TEST_STACKS: '1' })).toBe(1);
  expect(() => stackCount({ TEST_STACKS: '0' })).toThrow(/TEST_STACKS/);
});

it("keeps each offset's store data in a folder of its own, and offset 0 where it always was", () => {
  expect(stackDataName('s0', {})).toBe('s0');
  expect(stackDataName('s0', { TEST_PORT_OFFSET: '500' })).toBe('s0-o500');
  expect(new Set(['0', '100', '600'].map((o) => stackDataName('s1', { TEST_PORT_OFFSET: o }))).size).toBe(3);
});
