// The Go tools' cache: a binary is reused only for the version pinned, so changing a pin builds the new version.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goTool } from '../support/go-tool.js';

const dir = mkdtempSync(join(tmpdir(), 'go-tool-'));
const proxy = process.env.GOPROXY;
// A build must fail here rather than reach the network: the module does not exist and lookups are off.
beforeAll(() => {
  process.env.GOPROXY = 'off';
});
afterAll(() => {
  if (proxy === undefined) delete process.env.GOPROXY; else process.env.GOPROXY = proxy;
  rmSync(dir, { recursive: true, force: true });
});

const stub = (name: string) => {
  writeFileSync(join(dir, name), '#!/bin/sh\n');
  chmodSync(join(dir, name), 0o755);
};

describe('goTool', () => {
  it('reuses the binary of the pinned version, and builds when the pin changes', () => {
    stub('fake@v1.0.0');
    expect(goTool('fake', 'example.invalid/fake@v1.0.0', dir)).toBe(join(dir, 'fake@v1.0.0'));
    expect(() => goTool('fake', 'example.invalid/fake@v2.0.0', dir)).toThrow(/go install example\.invalid\/fake@v2\.0\.0 failed/);
  });

  it('does not take a binary cached without its version for any version', () => {
    stub('other');
    expect(() => goTool('other', 'example.invalid/other@v1.0.0', dir)).toThrow(/failed/);
  });

  it('refuses a module without a pinned version', () => {
    expect(() => goTool('fake', 'example.invalid/fake', dir)).toThrow(/pin a version/);
  });
});
