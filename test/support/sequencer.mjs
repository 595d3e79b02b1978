// Jest's order of test files: longest first, so no long file starts last while the other worker idles. Jest knows a
// file's time only from an earlier run on this machine; a fresh clone has none, and jest then orders by file size,
// which put crash-recovery (96 s) 44th of 155 in a cold CI run. There the times below stand in.
import Sequencer from '@jest/test-sequencer';

/** Seconds per tier and file, measured in one warm run on 2 cores (the files over 15 s; any other counts as 5). */
export const MEASURED = {
  'slow:store-faults': 240,
  'stack:contract-real-kv-graph': 120,
  'twins:hostile-input': 99,
  'slow:crash-recovery': 96,
  'slow:rebuild-under-load': 81,
  'slow:write-path': 68,
  'stack:relation-list': 67,
  'slow:partitioned-index': 52,
  'slow:hostile-input': 48,
  'slow:conformance-two-processes': 47,
  'stack:fuzz': 46,
  'stack:conformance': 44,
  'stack:index-plans': 43,
  'stack:projection-decisions': 41,
  'slow:state-large': 39,
  'slow:communications-faults': 38,
  'stack:warm-reads': 27,
  'twins:readme-blocks': 23,
  'stack:communications-lost-queue': 22,
  'stack:neo4j-browser': 20,
  'twins:write-path': 20,
  'twins:state': 19,
  'twins:conformance-orders': 17,
  'twins:fuzz-twins': 17,
};
const OTHERWISE_S = 5;

const Base = Sequencer.default ?? Sequencer;

export default class LongestFirst extends Base {
  /** The time of the last run here, else the measured one: every file has one, or jest would run the timed ones last. */
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const file = test.path.split('/').pop().replace(/\.test\.ts$/, '');
    return 1000 * (MEASURED[`${test.context.config.displayName?.name ?? ''}:${file}`] ?? OTHERWISE_S);
  }
}
