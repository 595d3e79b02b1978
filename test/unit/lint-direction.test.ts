// The lint rules that hold the layers apart: services import ports, never an adapter; the engine imports nothing that does I/O.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const cwd = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd });

/** The import-direction errors ESLint reports for `code` as if it were the file at `filePath`. */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports' && m.severity === 2).map((m) => m.message);
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
});
