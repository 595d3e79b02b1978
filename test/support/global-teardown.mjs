// Jest global teardown (see global-setup.mjs for why this is JavaScript).
import { register } from 'tsx/esm/api';

export default async function teardown(...args) {
  register();
  const { default: run } = await import('./stack-teardown.ts');
  return run(...args);
}
