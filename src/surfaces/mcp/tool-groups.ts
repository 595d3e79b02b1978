// Which tools an MCP connection gets (contract 4.4): tool groups chosen by `?modules=`, the alias, and the tool list. A tool
// group is a route's `group` (its module, or for communications the channel) or, for a config tool, the module it configures.
import { z } from 'zod';
import { flatArgs, type FlatArgs } from '../flat-args.js';
import type { Route } from '../registry.js';

export const META = '__meta__';
/** Tools every connection loads whatever groups it asks for (contract 4.4: the global `get_config`). */
export const GLOBAL = '__global__';
const GLOBAL_TOOLS = new Set(['get_config']);
export const DEFAULT_GROUPS = ['core', META];
/** `communications` stands for the tool groups that send things (contract 4.4). */
export const ALIASES: Record<string, string[]> = { communications: ['email', 'push', 'sms'] };

export interface Tool {
  name: string;
  group: string;
  description: string;
  route: Route;
  flat: FlatArgs;
  /** Fixed arguments the caller does not give (the module of a config tool). */
  fixed?: Record<string, unknown>;
  /**
   * Loose, so the SDK hands over undeclared arguments too and the pipeline refuses them (REST answers 400 for those);
   * shown to clients as closed (additionalProperties false), which is what the server enforces.
   */
  inputSchema: z.ZodObject;
}

/** A field's own schema when it can be shown as JSON Schema (what MCP clients see), else any value (checked by the route). */
function shown(schema: z.ZodType | undefined): z.ZodType {
  if (!schema) return z.unknown();
  try {
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' });
    return schema;
  } catch {
    return z.unknown();
  }
}

function toolOf(r: Route, name: string, group = r.group, fixed?: Record<string, unknown>, description?: string): Tool {
  const flat = flatArgs(r);
  const inputSchema: Record<string, z.ZodType> = {};
  for (const a of flat.args) {
    if (fixed && a.name in fixed) continue;
    // Shown to clients with its type, but never refused by the SDK: the pipeline validates every argument, so a bad
    // one gets the catalog's VALIDATION_FAILED body here as on every other transport. A missing one too: the SDK
    // would refuse a missing required key with its own message, so requiredness is said in the description instead.
    // `unknown` comes first so the SDK hands over the argument as sent: the field's own schema would transform it
    // first (a record drops `__proto__` keys, coercions and defaults apply), and the pipeline would check the result.
    const s = shown(a.schema);
    const described = a.required ? `required${a.description ? `: ${a.description}` : ''}` : a.description;
    const field = z.union([z.unknown(), s]).optional();
    inputSchema[a.name] = described ? field.describe(described) : field;
  }
  for (const where of Object.keys(flat.whole)) inputSchema[where] = z.unknown().describe(`the whole ${where}`);
  return { name, group, description: description ?? `${r.summary} (${r.rateKey})`, route: r, flat, fixed,
    inputSchema: z.looseObject(inputSchema).meta({ additionalProperties: false }) };
}

/**
 * Every tool of the admin surface: one per route that allows it, named by the contract's rule, except the
 * generic `/config/:module` routes, which become `get_config_{module}` and `patch_config_{module}` per module.
 */
export function allTools(routes: readonly Route[], configModules: string[]): Tool[] {
  const admin = routes.filter((r) => r.surface === 'admin' && r.mcp !== false && r.auth !== 'user');
  const out: Tool[] = [];
  for (const r of admin) {
    const { method, path } = r.http;
    if (path === '/config/:module') {
      for (const m of configModules) {
        out.push(toolOf(r, `${method}_config_${m}`, m, { module: m }, `${method === 'get' ? 'Read' : 'Change'} the ${m} config module (${method.toUpperCase()} /config/${m})`));
      }
      continue;
    }
    out.push(toolOf(r, r.id, GLOBAL_TOOLS.has(r.id) ? GLOBAL : r.group));
  }
  return out;
}

/** The tool groups a `?modules=` value asks for (defaults, aliases expanded) and the names that are not groups at all. */
export function selectGroups(param: string | undefined, known: ReadonlySet<string>): { groups: string[]; unknown: string[] } {
  if (param === undefined || param.trim() === '') return { groups: DEFAULT_GROUPS, unknown: [] };
  const asked = param.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = asked.filter((m) => !known.has(m) && !ALIASES[m] && m !== META);
  // An alias that is also a group (communications: its config tools) loads that group besides what it stands for.
  const expanded = asked.flatMap((m) => (ALIASES[m] ? [...(known.has(m) ? [m] : []), ...ALIASES[m]] : [m]));
  return { groups: [...new Set([...expanded, META])], unknown };
}
