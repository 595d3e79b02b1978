// The playground's script and stylesheet: bundled from ./browser by esbuild on first use where the sources are
// (a clone, under tsx or compiled), else read from dist/playground, the static build (the service image ships only dist).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ROOT } from '../../root.js';
import { playgroundPage } from './page.js';

export const ASSET_NAMES = ['playground.js', 'playground-worker.js', 'playground.css'] as const;
export type AssetName = typeof ASSET_NAMES[number];
export type PlaygroundAssets = Record<AssetName, string>;

const SOURCES = join(ROOT, 'src', 'surfaces', 'playground', 'browser');
export const BUILT = join(ROOT, 'dist', 'playground');

let building = 0;

/**
 * Bundles the page's code (the engine included, exactly as the server runs it) and its stylesheet, in memory. esbuild's
 * child process is stopped when no bundling is left: the service bundles once, and the child would else stay (16 MB).
 */
export async function bundlePlayground(opts: { minify?: boolean } = {}): Promise<PlaygroundAssets> {
  // Counted before any await: a call made while another finishes must keep that one from stopping esbuild under it.
  building++;
  const esbuild = await import('esbuild').catch((e: unknown) => {
    building--;
    throw e;
  });
  try {
    return await bundle(esbuild.build, opts);
  } finally {
    if (--building === 0) await esbuild.stop();
  }
}

async function bundle(build: typeof import('esbuild').build, opts: { minify?: boolean }): Promise<PlaygroundAssets> {
  // A classic script (iife), not a module: browsers refuse module scripts on pages opened from disk (file://).
  const result = await build({
    entryPoints: [
      { in: join(SOURCES, 'main.ts'), out: 'playground' },
      { in: join(SOURCES, 'worker.ts'), out: 'playground-worker' },
      { in: join(SOURCES, 'playground.css'), out: 'playground' },
    ],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: opts.minify ?? true,
    legalComments: 'none',
    logLevel: 'silent',
    charset: 'utf8',
  });
  const text = (name: AssetName) => {
    const file = result.outputFiles.find((f) => basename(f.path) === name);
    if (!file) throw new Error(`esbuild wrote no ${name} for the playground`);
    return file.text;
  };
  return Object.fromEntries(ASSET_NAMES.map((n) => [n, text(n)])) as PlaygroundAssets;
}

async function readBuilt(): Promise<PlaygroundAssets> {
  if (!existsSync(join(BUILT, 'playground.js'))) {
    throw new Error(`the playground is neither in ${SOURCES} nor built in ${BUILT}: run npm run build:playground`);
  }
  const texts = await Promise.all(ASSET_NAMES.map((n) => readFile(join(BUILT, n), 'utf8')));
  return Object.fromEntries(ASSET_NAMES.map((n, i) => [n, texts[i]!])) as PlaygroundAssets;
}

let assets: Promise<PlaygroundAssets> | null = null;

/** The assets, made once per process; a failure is not kept, so the next request tries again. */
export function playgroundAssets(): Promise<PlaygroundAssets> {
  assets ??= (existsSync(join(SOURCES, 'main.ts')) ? bundlePlayground() : readBuilt()).catch((e: unknown) => {
    assets = null;
    throw e;
  });
  return assets;
}

/** The static build: index.html (assets beside it) and the assets, in `dir`. */
export async function writeStaticPlayground(dir: string): Promise<void> {
  const built = await bundlePlayground();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'index.html'), playgroundPage('./', 'static'));
  for (const name of ASSET_NAMES) await writeFile(join(dir, name), built[name]);
}
