// What the tests build or fetch before they run (the local stack's FerretDB and Neo4j jars, grpcurl, gofakes3), each
// once: `npm test` runs this beside the lint and the type check, so on a fresh clone the downloads and Go builds overlap
// them instead of holding the first tests (the stacks' setup took 114 s in a cold CI run, most of it these).
import { existsSync } from 'node:fs';
import { prepareEverything } from '../../infra/stack.js';
import { grpcurl } from './go-tool.js';
import { buildGofakes3 } from './gofakes3.js';

const log = (l: string) => process.stderr.write(`[prepare] ${l}\n`);
// With a Docker engine the stacks may be containers (test/support/containers.ts), which need none of the local builds;
// the global setup still builds them if it falls back to the local launchers.
if (process.env.TEST_INFRA === 'local' || !existsSync('/var/run/docker.sock')) prepareEverything(process.env, log);
grpcurl();
buildGofakes3();
