// In-process CPU profile of a bench phase (service and load client share the process): saved, and its top functions printed.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export async function startProfile(): Promise<() => Promise<Profile>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop') as unknown as { profile: Profile };
    session.disconnect();
    return profile;
  };
}

/** Writes the profile (open it in Chrome DevTools) and returns its top `n` functions by self time, grouped by source. */
export function summarise(profile: Profile, file: string, n = 12): string[] {
  writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const f = byId.get(id)!.callFrame;
    const where = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
    const name = `${f.functionName || '(anonymous)'} ${where ? `${where}:${f.lineNumber + 1}` : ''}`.trim();
    self.set(name, (self.get(name) ?? 0) + dt);
    const group = f.url === '' ? f.functionName : where.startsWith('src/') ? where.split('/').slice(0, 3).join('/')
      : where.startsWith('node:') ? 'node internals' : where.split('/')[0]!;
    area.set(group, (area.get(group) ?? 0) + dt);
    total += dt;
  });
  const top = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n)
      .map(([k, v]) => `    ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  return [`  by area (self time, ${(total / 1e6).toFixed(0)} s sampled):`, ...top(area), '  top functions:', ...top(self)];
}
