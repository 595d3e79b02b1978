// Flat arguments (admin GraphQL fields, MCP tools) from intents, poisoned when a mutating route would take them.
import { flatArgs, splitArgs, type FlatArgs } from '../../../src/surfaces/flat-args.js';
import type { Route } from '../../../src/surfaces/registry.js';
import type { Intent } from './inputs.js';
import { mutating, POISON, wouldPass } from './mutation.js';

/** The intent's fields as flat arguments: named ones by name, whole locations by location, unknown ones kept (they are hostile too). */
export function argsOf(r: Route, flat: FlatArgs, intent: Intent): Record<string, unknown> {
  const args: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const where of ['params', 'query', 'body'] as const) {
    const v = intent[where];
    if (v === undefined) continue;
    if (flat.whole[where] || !(v && typeof v === 'object' && !Array.isArray(v))) {
      args[where] = v;
      continue;
    }
    for (const [k, x] of Object.entries(v)) if (!(k in args)) Object.defineProperty(args, k, { value: x, enumerable: true, writable: true, configurable: true });
  }
  return Object.fromEntries(Object.entries(args));
}

/**
 * Arguments safe to send: for a mutating route that would take them (as split by the server, with `fixed` ones added
 * and those the transport drops left out), the first argument becomes a string with a NUL, which the pipeline refuses.
 * `null` when the route takes no argument to poison (the caller then sends no credentials).
 */
export function safeArgs(r: Route, args: Record<string, unknown>, opts: { fixed?: Record<string, unknown>; dropsUnknown: boolean }): Record<string, unknown> | null {
  const flat = flatArgs(r);
  const names = [...flat.args.map((a) => a.name).filter((n) => !(opts.fixed && n in opts.fixed)), ...Object.keys(flat.whole)];
  const seen = opts.dropsUnknown ? Object.fromEntries(Object.entries(args).filter(([k]) => names.includes(k))) : args;
  if (!mutating(r)) return args;
  const unknown = Object.keys(args).some((k) => !names.includes(k));
  if (!opts.dropsUnknown && unknown) return args; // refused as an unknown argument
  if (!wouldPass(r, splitArgs(r, flat, { ...seen, ...opts.fixed }))) return args;
  if (!names.length) return null;
  return { ...args, [names[0]!]: POISON };
}
