// Every conformance case through the admin HTTP API on the real stores, in one shuffled write order (the other orders
// run on the twins, conformance-orders.test.ts: which order a write lands in is the applier's matter, above the ports,
// and the index contract compares Neo4j's answers with the evaluator's, state by state, written whole and applied).
import { conformanceSuite } from '../support/conformance-suite.js';

conformanceSuite([11]);
