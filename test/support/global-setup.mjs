// Jest loads global setup outside its module mapper, so TypeScript is loaded here through tsx (at call time:
// Jest 29 may require() this file, which cannot hold a top-level await).
import { register } from 'tsx/esm/api';

export default async function setup(...args) {
  register();
  const { default: run } = await import('./stack-setup.ts');
  return run(...args);
}
