// Jest global teardown (see global-setup.mjs for why this is JavaScript).
import { register } from 'tsx/esm/api';

register();
const { default: teardown } = await import('./stack-teardown.ts');
export default teardown;
