// MCP tools/call requests from intents, as raw JSON-RPC over HTTP, with hostile envelopes around them.
import fc from 'fast-check';
import type { Tool } from '../../../src/surfaces/mcp/tool-groups.js';
import { argsOf, safeArgs } from './flat.js';
import { intents, type Intent } from './inputs.js';
import { mutating } from './mutation.js';
import { hostileValue } from './values.js';

/** What is done to the JSON-RPC envelope: nothing mostly, else wrong types and shapes where the protocol has fixed ones. */
const ENVELOPES = ['none', 'none', 'none', 'none', 'none', 'none', 'args-wrong-type', 'unknown-tool', 'no-jsonrpc', 'id-object', 'batch', 'unknown-method', 'proto-params', 'bytes',
  'params-wrong-type'] as const;
export type Envelope = typeof ENVELOPES[number];

export interface McpCase {
  intent: Intent;
  envelope: Envelope;
  junk: unknown;
}

export const mcpCases = (t: Tool, known: string[]): fc.Arbitrary<McpCase> =>
  fc.record({ intent: intents(t.route, known), envelope: fc.constantFrom(...ENVELOPES), junk: hostileValue });

/** The HTTP body of one call; null when a mutating tool has nothing to poison (sent without credentials instead). */
export function mcpBody(t: Tool, c: McpCase, id: number): Buffer | null {
  // The SDK drops arguments the tool does not declare, so only declared ones count for the poison.
  const args = safeArgs(t.route, argsOf(t.route, t.flat, c.intent), { fixed: t.fixed, dropsUnknown: true });
  if (!args) return null;
  const call = (a: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: t.name, arguments: a } });
  // Junk in place of the arguments could itself be arguments a mutating tool takes: those get the poisoned ones.
  const junkArgs = c.junk !== null && typeof c.junk === 'object' && !Array.isArray(c.junk) && mutating(t.route);
  const envelope = junkArgs && (c.envelope === 'args-wrong-type' || c.envelope === 'params-wrong-type') ? 'none' : c.envelope;
  let env: unknown;
  switch (envelope) {
    case 'args-wrong-type':
      env = call(c.junk);
      break;
    case 'unknown-tool':
      env = { ...call(args), params: { name: `${t.name}\u0000x`, arguments: args } };
      break;
    case 'no-jsonrpc':
      env = { id, method: 'tools/call', params: { name: t.name, arguments: args } };
      break;
    case 'id-object':
      env = { ...call(args), id: { $gt: 1 } };
      break;
    case 'batch':
      env = [call(args), call(args)];
      break;
    case 'unknown-method':
      env = { ...call(args), method: 'tools/../call' };
      break;
    case 'proto-params':
      env = { ...call(args), params: JSON.parse(`{"__proto__":{"name":"x"},"name":${JSON.stringify(t.name)},"arguments":${JSON.stringify(args)}}`) };
      break;
    case 'params-wrong-type':
      env = { ...call(args), params: c.junk };
      break;
    case 'bytes':
      return Buffer.concat([Buffer.from(JSON.stringify(call(args)).slice(0, -2)), Buffer.from([0xff, 0xfe, 0x00])]);
    default:
      env = call(args);
  }
  return Buffer.from(JSON.stringify(env));
}
