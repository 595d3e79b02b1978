// `npm run build:playground`: the playground as static files (index.html, its scripts and stylesheet) in
// dist/playground, for the service image (which ships dist only) and for hosting the page anywhere.
import { relative } from 'node:path';
import { ROOT } from '../../root.js';
import { ASSET_NAMES, BUILT, writeStaticPlayground } from './assets.js';

await writeStaticPlayground(BUILT);
console.log(`playground written to ${relative(ROOT, BUILT)}/: index.html, ${ASSET_NAMES.join(', ')}`);
