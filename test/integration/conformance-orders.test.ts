// Every conformance case through the admin HTTP API on the in-memory twins, in three shuffled write orders.
import { conformanceSuite } from '../support/conformance-suite.js';

conformanceSuite([11, 22, 33]);
