// Development secrets: taken from the environment, else generated once and kept in .data/secrets.json (0600).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const SECRET_NAMES = ['MASTER_KEY', 'ADMIN_PASSWORD', 'ADMIN_JWT_SECRET', 'CLIENT_JWT_SECRET'] as const;
export type Secrets = Record<(typeof SECRET_NAMES)[number], string>;

export function devSecrets(file: string, env: NodeJS.ProcessEnv): { secrets: Secrets; generated: string[] } {
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const generated: string[] = [];
  const secrets = {} as Secrets;
  for (const name of SECRET_NAMES) {
    const fromEnv = env[name];
    if (fromEnv) {
      secrets[name] = fromEnv;
      continue;
    }
    if (!stored[name]) {
      stored[name] = randomBytes(name === 'ADMIN_PASSWORD' ? 12 : 32).toString('base64url');
      generated.push(name);
    }
    secrets[name] = stored[name]!;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return { secrets, generated };
}
