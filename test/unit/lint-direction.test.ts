// The lint rules that hold the layers apart: services, modules and surfaces import ports, never an adapter nor a driver;
// the engine imports nothing that does I/O.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const cwd = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd });

/** The errors of `rule` (the import-direction one unless named) ESLint reports for `code` as if it were the file at `filePath`. */
async function restricted(filePath: string, code: string, rule = 'no-restricted-imports'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === rule && m.severity === 2).map((m) => m.message);
}

describe('import direction', () => {
  it('refuses a service that imports a Redis adapter', async () => {
    expect(await restricted('src/services/x.ts', "import { Lease } from '../stores/redis/lease.js';\nexport const lease = Lease;\n"))
      .toHaveLength(1);
    expect(await restricted('src/services/authorization/x.ts', "import type { Lease } from '../../stores/redis/lease.js';\nexport type L = Lease;\n"))
      .toHaveLength(1);
  });

  it('refuses a service that imports a driver', async () => {
    for (const driver of ['ioredis', 'mongodb', 'neo4j-driver']) {
      expect(await restricted('src/services/x.ts', `import * as d from '${driver}';\nexport const driver = d;\n`)).toHaveLength(1);
    }
  });

  it('refuses a service that imports a file, queue, mail or in-memory adapter', async () => {
    for (const adapter of ['files/local.js', 'files/s3.js', 'queue/bullmq.js', 'mail/smtp.js', 'memory/job-queue.js']) {
      expect(await restricted('src/services/storage/x.ts', `import * as a from '../../stores/${adapter}';\nexport const adapter = a;\n`)).toHaveLength(1);
    }
  });

  it('refuses a service that imports the queue, mail or S3 driver', async () => {
    for (const driver of ['bullmq', 'nodemailer', '@aws-sdk/client-s3', '@aws-sdk/lib-storage']) {
      expect(await restricted('src/services/x.ts', `import * as d from '${driver}';\nexport const driver = d;\n`)).toHaveLength(1);
    }
  });

  it('refuses a module or a surface that imports an adapter or a driver', async () => {
    for (const file of ['src/wiring/x.ts', 'src/surfaces/x.ts']) {
      expect(await restricted(file, "import { bullmqConnection } from '../stores/redis/bullmq.js';\nexport const c = bullmqConnection;\n")).toHaveLength(1);
      expect(await restricted(file, "import { openFileStorage } from '../stores/files/open.js';\nexport const o = openFileStorage;\n")).toHaveLength(1);
      expect(await restricted(file, "import { Queue } from 'bullmq';\nexport const Q = Queue;\n")).toHaveLength(1);
      expect(await restricted(file, "import { MongoClient } from 'mongodb';\nexport const M = MongoClient;\n")).toHaveLength(1);
    }
    expect(await restricted('src/surfaces/routes/x.ts', "import type { Graph } from '../../stores/neo4j/graph.js';\nexport type G = Graph;\n")).toHaveLength(1);
  });

  it('lets a module take the composed stores and ports, and the composition import adapters', async () => {
    expect(
      await restricted('src/wiring/x.ts',
        "import type { Stores } from '../stores/ports/stores.js';\nimport type { JobQueue } from '../stores/ports/job-queue.js';\nexport type S = [Stores, JobQueue<unknown>];\n"),
    )
      .toEqual([]);
    // The composition itself is not for modules: it would load every driver.
    expect(await restricted('src/wiring/x.ts', "import { connectStores } from '../stores/stores.js';\nexport const c = connectStores;\n")).toHaveLength(1);
    expect(
      await restricted('src/stores/stores.ts',
        "import { bullmqJobQueues } from './queue/bullmq.js';\nimport { Redis } from 'ioredis';\nexport const q = [bullmqJobQueues, Redis];\n"),
    )
      .toEqual([]);
  });

  it('lets a service import a port', async () => {
    expect(await restricted('src/services/x.ts', "import type { Lease } from '../stores/ports/lease.js';\nexport type L = Lease;\n")).toEqual([]);
  });

  it('refuses an engine file that does I/O or reaches for stores and services', async () => {
    expect(await restricted('src/engine/x.ts', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n")).toHaveLength(1);
    expect(await restricted('src/engine/x.ts', "import type { Epoch } from '../stores/ports/epoch.js';\nexport type E = Epoch;\n")).toHaveLength(1);
    expect(await restricted('src/engine/x.ts', "import type { Relations } from '../services/authorization/relations.js';\nexport type R = Relations;\n"))
      .toHaveLength(1);
  });

  it('lets an engine file import the engine', async () => {
    expect(await restricted('src/engine/x.ts', "import { typeOf } from './ids.js';\nexport const t = typeOf;\n")).toEqual([]);
  });

  it("refuses a dynamic import of GraphQL's lazy modules anywhere but runtime.ts (two at once race in Jest's linker)", async () => {
    const lazy = (spec: string) => `export const load = () => import('${spec}');\n`;
    for (const spec of ['./admin-schema.js', './client-schema.js', './apollo-handler.js', '@apollo/server', 'graphql', '@escape.tech/graphql-armor']) {
      expect(await restricted('src/surfaces/graphql/endpoint.ts', lazy(spec), 'no-restricted-syntax')).toHaveLength(1);
      expect(await restricted('src/surfaces/graphql/runtime.ts', lazy(spec), 'no-restricted-syntax')).toEqual([]);
    }
    expect(await restricted('src/surfaces/graphql/endpoint.ts', lazy('./runtime.js'), 'no-restricted-syntax')).toEqual([]);
  });
});
