// The contract suites of the Redis- and Neo4j-backed ports, run against the real adapters on the test stack.
import { connectNeo4j } from '../../src/stores/neo4j/connection.js';
import { neo4jIndexStore } from '../../src/stores/neo4j/index-store.js';
import { indexStoreContract } from '../contract/index-store.contract.js';

const neo4jUri = () => process.env.NEO4J_URI!;
const connect = () => connectNeo4j(neo4jUri(), process.env.NEO4J_USER ?? 'neo4j', process.env.NEO4J_PASSWORD ?? '');

beforeAll(async () => {
  // As every test file of the stack tier starts from nothing (test/support/service.ts): the index meta is global.
  const driver = await connect();
  for (let n = 1; n > 0;) n = Number((await driver.executeQuery('MATCH (x) WITH x LIMIT 10000 DETACH DELETE x RETURN count(*) AS c')).records[0]!.get('c'));
  await driver.close();
});

describe('real adapters', () => {
  indexStoreContract(async () => {
    const driver = await connect();
    return { index: neo4jIndexStore(driver), cleanup: () => driver.close() };
  });
});
