// Saved connections (`authz login`): a JSON file in the user's config directory, readable by its owner only.
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from './exit.js';
import type { Env, Sink } from './io.js';

export interface Profile {
  url: string;
  token: string;
}
interface ProfileFile {
  profiles: Record<string, Profile>;
}

/**
 * The home directory as os.homedir() finds it, but in `env` rather than the process's own: HOME (USERPROFILE on
 * Windows), else the user's entry in the password file.
 */
const home = (env: Env) => (process.platform === 'win32' ? env.USERPROFILE : env.HOME) ?? userInfo().homedir;

/** $XDG_CONFIG_HOME, %APPDATA% or the platform's usual place, then `authz/profiles.json`. */
export function profilePath(env: Env): string {
  const base = env.XDG_CONFIG_HOME
    || (process.platform === 'win32' && env.APPDATA)
    || (process.platform === 'darwin' ? join(home(env), 'Library', 'Application Support') : join(home(env), '.config'));
  return join(base, 'authz', 'profiles.json');
}

export const profileName = (flag: string | undefined, env: Env) => flag ?? env.AUTHZ_PROFILE ?? 'default';

async function readAll(path: string): Promise<ProfileFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new CliError(EXIT.input, `${path}: cannot read: ${(e as NodeJS.ErrnoException).code}`);
  }
  try {
    const v = JSON.parse(text) as ProfileFile;
    if (v && typeof v.profiles === 'object' && v.profiles) return v;
  } catch { /* reported below */ }
  throw new CliError(EXIT.input, `${path}: not a profile file; remove it and run authz login again`);
}

/** `stderr` takes the warning about a profile file others can read. */
export async function readProfile(name: string, path: string, stderr: Sink): Promise<Profile | undefined> {
  const all = await readAll(path);
  const p = Object.hasOwn(all.profiles, name) ? all.profiles[name] : undefined;
  const mode = p && process.platform !== 'win32' ? (await stat(path)).mode : 0;
  // Whoever can change the file can point its URL at their own server, and the token would go there.
  if ((mode & 0o022) !== 0) {
    throw new CliError(EXIT.auth,
      `${path} can be changed by other users (mode ${(mode & 0o777).toString(8)}), so its URL cannot be trusted with the token: run chmod 600 ${path} and check the URL in it`);
  }
  if ((mode & 0o077) !== 0) {
    stderr.write(`authz: warning: ${path} can be read by other users; run chmod 600 ${path}\n`);
  }
  return p;
}

/** Written to a temporary file with mode 0600 and renamed over, so the token is never readable by others, even briefly. */
export async function saveProfile(name: string, profile: Profile | null, path: string): Promise<boolean> {
  const all = await readAll(path);
  const existed = Object.hasOwn(all.profiles, name);
  if (profile) all.profiles[name] = profile;
  else delete all.profiles[name];
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, path);
  return existed;
}
