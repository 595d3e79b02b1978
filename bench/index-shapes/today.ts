// The `today` variant: the product's own path, the real IndexBatch over the real Neo4j adapters and the product's statements.
import neo4j from 'neo4j-driver';
import type { Tuple } from '../../src/engine/ids.js';
import type { Model } from '../../src/engine/model.js';
import { IndexBatch } from '../../src/services/authorization/index-batch.js';
import { memoryAuthzStore } from '../../src/stores/memory/authz.js';
import { memoryDeletionHints } from '../../src/stores/memory/deletion-hints.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import { connectNeo4j, loadCypher, warmNeo4j } from '../../src/stores/neo4j/connection.js';
import { neo4jGraphStore } from '../../src/stores/neo4j/graph.js';
import { neo4jIndexStore } from '../../src/stores/neo4j/index-store.js';
import type { Variant } from './variant.js';

/**
 * Connects as the service does (schema.cypher applied, statements planned once), with an empty in-memory MongoDB twin:
 * with `assumeStored` the batch reads back only tuples a delete hinted, and none is.
 */
export async function todayVariant(uri: string, model: Model): Promise<Variant> {
  const driver = await connectNeo4j(uri, 'neo4j', '');
  await warmNeo4j(driver);
  const index = neo4jIndexStore(driver);
  const batch = new IndexBatch(memoryAuthzStore(), neo4jGraphStore(driver), index, memoryDeletionHints(new MemoryHub(), 'bench'));
  await index.meta();
  const projection = loadCypher('projection.cypher');
  const indexCypher = loadCypher('index.cypher');
  return {
    name: 'today',
    driver,
    statements: new Map([...projection, ...indexCypher]),
    async loadUnit(tuples: Tuple[]) {
      const { gen } = await index.meta();
      await batch.apply({ tuples, grants: [], gens: [gen], model, assumeStored: true, structure: true });
    },
    can: (subject, action, object) => ({ text: indexCypher.get('check')!, params: { row: `${object}#${action}`, subject },
      answer: (records) => records[0]?.get('allowed') === true }),
    list: (subject, action, type) => ({ text: indexCypher.get('list-objects')!, params: { subject, action, type, skip: neo4j.int(0), limit: neo4j.int(100) },
      answer: (records) => records.map((r) => r.get('obj') as string) }),
  };
}
