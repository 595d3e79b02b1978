// Repeated warnings: the first of each kind at once, then at most one a window, saying how many were left out.
import { createLogger } from '../../src/log.js';
import { RepeatedWarnings } from '../../src/log-repeats.js';

function harness(windowMs = 10_000) {
  const lines: Array<Record<string, unknown>> = [];
  let now = 1_000_000;
  const logger = createLogger('warn', { write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  const warnings = new RepeatedWarnings(logger, windowMs, () => now);
  return { lines, warnings, advance: (ms: number) => (now += ms) };
}

describe('repeated warnings', () => {
  it('logs a kind once a window, then with how many were left out and over how long', () => {
    const { lines, warnings, advance } = harness();
    for (let i = 0; i < 1000; i++) warnings.warn({ entries: 1, err: 'connect ECONNREFUSED' }, 'apply failed; will retry');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'apply failed; will retry', err: 'connect ECONNREFUSED', entries: 1 });
    expect(lines[0]!.leftOut).toBeUndefined();
    advance(9_999);
    warnings.warn({ err: 'connect ECONNREFUSED' }, 'apply failed; will retry');
    expect(lines).toHaveLength(1);
    advance(1);
    warnings.warn({ err: 'connect ECONNREFUSED' }, 'apply failed; will retry');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ leftOut: 1000, sinceMs: 10_000 });
    // A quiet window after: the next one is logged as new, with nothing left out.
    advance(10_000);
    warnings.warn({ err: 'connect ECONNREFUSED' }, 'apply failed; will retry');
    expect(lines).toHaveLength(3);
    expect(lines[2]!.leftOut).toBeUndefined();
  });

  it('keeps kinds apart by message and by error text', () => {
    const { lines, warnings } = harness();
    warnings.warn({ err: 'a' }, 'one');
    warnings.warn({ err: 'b' }, 'one');
    warnings.warn({ err: 'a' }, 'two');
    warnings.warn({ err: 'a' }, 'one');
    expect(lines.map((l) => `${String(l.msg)} ${String(l.err)}`)).toEqual(['one a', 'one b', 'two a']);
  });

  it('remembers a bounded number of kinds: a flood of distinct errors grows nothing', () => {
    const { lines, warnings } = harness();
    for (let i = 0; i < 10_000; i++) warnings.warn({ err: `error ${i}` }, 'one');
    expect(lines).toHaveLength(10_000);
    // The first kinds were forgotten, so they log again at once.
    warnings.warn({ err: 'error 0' }, 'one');
    expect(lines).toHaveLength(10_001);
    expect((warnings as unknown as { kinds: Map<string, unknown> }).kinds.size).toBeLessThanOrEqual(64);
  });
});
