// Command specs: flags parsed with node:util parseArgs, and the --help text made from the same spec.
import { parseArgs } from 'node:util';
import { usage } from './exit.js';
import type { Env } from './io.js';

export interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help: `--limit N`. */
  arg?: string;
  help: string;
}

export interface CommandSpec {
  /** `relations read`: the words that select the command. */
  name: string;
  summary: string;
  /** Lines after `Usage: authz`, e.g. `check SUBJECT PERMISSION RESOURCE [flags]`. */
  usage: string[];
  /** A function of the environment where it names a path from it (login: the profile file). */
  description?: string | ((env: Env) => string);
  flags: Record<string, Flag>;
  examples?: string[];
}

/** Flags every command takes. */
export const COMMON: Record<string, Flag> = {
  help: { type: 'boolean', short: 'h', help: 'Show this help' },
  json: { type: 'boolean', help: 'Machine-readable output (JSON) on stdout' },
};

/** Flags of the commands that talk to a server. */
export const SERVER: Record<string, Flag> = {
  url: { type: 'string', arg: 'URL', help: 'Admin surface URL (else AUTHZ_URL, else the profile from authz login)' },
  token: { type: 'string', arg: 'TOKEN', help: 'API token or admin JWT (else AUTHZ_TOKEN, else the profile); prefer those: flags show in ps' },
  profile: { type: 'string', arg: 'NAME', help: 'Profile written by authz login (else AUTHZ_PROFILE, else "default")' },
  timeout: { type: 'string', arg: 'SECONDS', help: 'Give up on a request after this long (default 30)' },
};

export type Values = Record<string, string | boolean | string[] | undefined>;
export interface Parsed {
  values: Values;
  positionals: string[];
}

export function parse(spec: CommandSpec, argv: string[]): Parsed {
  const options = Object.fromEntries(
    Object.entries(spec.flags).map(([k, f]) => [k, { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) }]),
  );
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: r.values as Values, positionals: r.positionals };
  } catch (e) {
    // parseArgs messages name the flag; the hint says where the list of flags is.
    throw usage(`${(e as Error).message.replace(/\. To specify a positional argument.*$/s, '')}\nSee: authz ${spec.name} --help`);
  }
}

export function helpText(spec: CommandSpec, env: Env): string {
  const lines = [spec.summary, '', 'Usage:', ...spec.usage.map((u) => `  authz ${u}`)];
  const description = typeof spec.description === 'function' ? spec.description(env) : spec.description;
  if (description) lines.push('', ...description.split('\n'));
  const flags = Object.entries(spec.flags).map(([k, f]) => [`${f.short ? `-${f.short}, ` : '    '}--${k}${f.arg ? ` ${f.arg}` : ''}`, f.help]);
  const width = Math.max(...flags.map(([l]) => l!.length));
  lines.push('', 'Flags:', ...flags.map(([l, h]) => `  ${l!.padEnd(width)}  ${h}`));
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

export const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? v[k] as string : undefined);

/** An integer flag within bounds, or a usage error naming it. */
export function int(v: Values, k: string, { min, max, fallback }: { min: number; max: number; fallback: number }): number {
  const s = str(v, k);
  if (s === undefined) return fallback;
  const n = Number(s);
  if (!Number.isInteger(n) || n < min || n > max) throw usage(`--${k} must be an integer from ${min} to ${max}, got ${JSON.stringify(s)}`);
  return n;
}

/** One of the allowed words, or a usage error. */
export function choice<T extends string>(v: Values, k: string, allowed: readonly T[]): T | undefined {
  const s = str(v, k);
  if (s === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(s)) throw usage(`--${k} must be one of ${allowed.join(', ')}, got ${JSON.stringify(s)}`);
  return s as T;
}
