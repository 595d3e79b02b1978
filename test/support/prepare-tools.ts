// What the local test stacks need built or fetched (FerretDB, Neo4j's jars), each once: `npm test` runs this beside the
// lint and the type check, so on a fresh clone the downloads and the Go build overlap them instead of holding jest's
// global setup (the stacks' setup took 114 s in a cold CI run, most of it these; 27 s after). The Go tools single files
// use (grpcurl, gofakes3) stay built by those files, beside the other worker's tests: built here, they held jest back.
import { existsSync } from 'node:fs';
import { prepareEverything } from '../../infra/stack.js';

const log = (l: string) => process.stderr.write(`[prepare] ${l}\n`);
// With a Docker engine the stacks may be containers (test/support/containers.ts), which need none of the local builds;
// the global setup still builds them if it falls back to the local launchers.
if (process.env.TEST_INFRA === 'local' || !existsSync('/var/run/docker.sock')) prepareEverything(process.env, log);
