// Random scenarios through HTTP on the real stores: two of the engine's seeds and two of ../shared's fuzz.mjs (every
// seed runs on the twins, fuzz-twins.test.ts; the index contract compares Neo4j's answers with the evaluator's).
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite([1, 2], [1, 2]);
