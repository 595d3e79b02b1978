// The playground on the admin surface: GET /playground (the page, under its own CSP) and its script and stylesheet.
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { text } from '../routes/reply-parts.js';
import { route, type Route } from '../registry.js';
import { ASSET_NAMES, playgroundAssets, type AssetName } from './assets.js';
import { PLAYGROUND_CSP, playgroundPage } from './page.js';

const JS = 'text/javascript; charset=utf-8';
const TYPES: Record<AssetName, string> = { 'playground.js': JS, 'playground-worker.js': JS, 'playground.css': 'text/css; charset=utf-8' };
const isAsset = (name: string): name is AssetName => (ASSET_NAMES as readonly string[]).includes(name);

export function playgroundRoutes(): Route[] {
  const page = playgroundPage('/playground/assets/', 'service');
  const common = { surface: 'admin' as const, group: 'core', auth: 'none' as const, mcp: false, output: text };
  return [
    route({
      ...common,
      http: { method: 'get', path: '/playground', produces: ['text/html'] },
      summary: 'The playground: edit a model, tuples and assertions and see verdicts from the same engine, in the browser',
      handle: async () => {
        // The page asks for its script next: the first bundling starts now.
        void playgroundAssets().catch(() => undefined);
        return { text: page, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PLAYGROUND_CSP } };
      },
    }),
    route({
      ...common,
      http: { method: 'get', path: '/playground/assets/:file', produces: ['text/javascript', 'text/css'] },
      errors: ['NOT_FOUND'],
      summary: "The playground's script and stylesheet",
      params: z.strictObject({ file: z.string().max(100) }),
      handle: async ({ params }) => {
        if (!isAsset(params.file)) throw new AppError('NOT_FOUND', `No playground file ${params.file}; there are ${ASSET_NAMES.join(' and ')}`);
        return { text: (await playgroundAssets())[params.file], headers: { 'content-type': TYPES[params.file] } };
      },
    }),
  ];
}
