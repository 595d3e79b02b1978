// Jest setup file of the stack tiers: points this worker's tests at its own store stack.
import { useWorkerStack } from './test-stacks.js';

useWorkerStack();
