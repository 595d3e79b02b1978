// Random scenarios through HTTP on the in-memory twins: six of the engine's seeds and five of ../shared's fuzz.mjs.
import { fuzzSuite } from '../support/fuzz-suite.js';

fuzzSuite([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5]);
