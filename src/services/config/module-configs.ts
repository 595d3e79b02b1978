// Each module's config (DESIGN.md section 6): its strict schema with its defaults. Stored values are overrides.
import { z } from 'zod';
import { rateLimitsSchema } from '../rate-limits.js';
import { chatConfig } from './chat-config.js';
import { communicationsConfig, keepMaskedSecret, maskCommunications } from './communications-config.js';
import { storageConfig } from './storage-config.js';

export const MODULE_CONFIGS = {
  core: z.strictObject({
    transports: z.strictObject({
      /** POST /graphql on both surfaces. */
      graphql: z.boolean().default(true),
      /** The MCP tool server at {admin}/mcp. */
      mcp: z.boolean().default(true),
      /** The gRPC server (GRPC_PORT); while off, every call answers NOT_FOUND. */
      grpc: z.boolean().default(true),
      /** The realtime socket (SOCKET_PORT) and the admin surface's WebSockets. */
      socket: z.boolean().default(true),
    }).prefault({}),
  }),
  database: z.strictObject({
    readPreference: z.enum(['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest']).default('primary'),
    readConcern: z.strictObject({ level: z.enum(['local', 'available', 'majority', 'linearizable', 'snapshot']) }).optional(),
    writeConcern: z.strictObject({
      w: z.union([z.number().int().min(0).max(50), z.literal('majority')]).optional(),
      j: z.boolean().optional(),
      wtimeoutMS: z.number().int().min(0).max(600_000).optional(),
    }).prefault({}),
  }),
  router: z.strictObject({
    rateLimits: rateLimitsSchema.prefault({}),
  }),
  communications: communicationsConfig,
  storage: storageConfig,
  chat: chatConfig,
} as const;

export type ModuleName = keyof typeof MODULE_CONFIGS;
export type ModuleConfig<M extends ModuleName> = z.infer<(typeof MODULE_CONFIGS)[M]>;
export const MODULE_NAMES = Object.keys(MODULE_CONFIGS) as ModuleName[];
export const isModule = (name: string): name is ModuleName => Object.hasOwn(MODULE_CONFIGS, name);

/** A module's value as the API shows it: secrets (the SMTP password) masked, whatever reads it (REST, GraphQL, MCP). */
const MASKS: Partial<Record<ModuleName, (value: never) => unknown>> = { communications: maskCommunications };
export const masked = (name: ModuleName, value: unknown): unknown => (MASKS[name] ? MASKS[name](value as never) : value);
/** A PATCH as stored: a masked secret sent back keeps the stored one. */
const UNMASKS: Partial<Record<ModuleName, (patch: Json, stored: Json) => Json>> = { communications: keepMaskedSecret };
export const unmasked = (name: ModuleName, patch: Json, stored: Json): Json => (UNMASKS[name] ? UNMASKS[name](patch, stored) : patch);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A PATCH over stored overrides: objects merge key by key, anything else replaces, and null removes the key
 * (so `{"routes": {"POST /x": null}}` drops one route's limit and its default applies again).
 */
export function mergePatch(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isObject(v) && isObject(out[k])) out[k] = mergePatch(out[k] as Json, v);
    else out[k] = v;
  }
  return out;
}
