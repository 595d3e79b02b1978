// Secret comparison: equal only for the same text, whatever the lengths, and never stale when the expected secret changes.
import { secretEquals } from '../../src/services/secrets.js';

it('is true only for the same secret, and follows a changed expected secret', () => {
  expect(secretEquals('a-master-key-0001', 'a-master-key-0001')).toBe(true);
  expect(secretEquals('a-master-key-0002', 'a-master-key-0001')).toBe(false);
  expect(secretEquals('a-master-key', 'a-master-key-0001')).toBe(false);
  expect(secretEquals('', 'a-master-key-0001')).toBe(false);
  expect(secretEquals('ünïcode-key', 'ünïcode-key')).toBe(true);
  // The expected side's digest is kept between calls: another expected secret must not reuse it.
  expect(secretEquals('a-master-key-0001', 'another-key-00001')).toBe(false);
  expect(secretEquals('another-key-00001', 'another-key-00001')).toBe(true);
  expect(secretEquals('a-master-key-0001', 'a-master-key-0001')).toBe(true);
});
