// What `npm pack` puts in the package: the build in dist/ (an installed package has no tsx, so `npx authz` and
// `authz-graph/client` run from it), made by prepack. Checked with npm's own file list in a copy of the package rules.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../../src/root.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, string>;
  scripts: Record<string, string>;
};

describe('the packed package', () => {
  it('holds the build its bin and exports need, and prepack makes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'authz-pack-'));
    for (const f of ['package.json', '.gitignore', '.npmignore']) if (existsSync(join(ROOT, f))) copyFileSync(join(ROOT, f), join(dir, f));
    // Stand-ins for the files the bin and exports name, and for the source beside them.
    const needed = [...Object.values(pkg.bin), ...Object.values(pkg.exports), 'dist/src/cli/main.js', 'src/cli/main.ts']
      .map((p) => p.replace(/^\.\//, ''));
    for (const p of needed) {
      mkdirSync(join(dir, dirname(p)), { recursive: true });
      writeFileSync(join(dir, p), '// stand-in\n');
    }
    let out: string;
    try {
      out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    for (const p of needed) expect([p, files.includes(p)]).toEqual([p, true]);
    expect(pkg.scripts.prepack).toBe('npm run build');
  });
});
