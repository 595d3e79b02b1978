// Jest loads global setup outside its module mapper, so TypeScript is loaded here through tsx.
import { register } from 'tsx/esm/api';

register();
const { default: setup } = await import('./stack-setup.ts');
export default setup;
