// The first admin comes from the environment, which is authoritative: created, or its password reset to the one given.
import bcrypt from 'bcrypt';
import type { AdminRecord, AdminStore } from '../stores/ports/admins.js';
import { PASSWORD_ROUNDS } from './dummy-hash.js';

/** Hashes again only when the stored hash does not match the password (a bcrypt costs tens of milliseconds). */
export async function bootstrapAdmin(admins: AdminStore, username: string, password: string): Promise<AdminRecord> {
  const existing = await admins.findByUsername(username);
  const hash = existing && await bcrypt.compare(password, existing.passwordHash) ? existing.passwordHash : await bcrypt.hash(password, PASSWORD_ROUNDS);
  return admins.upsert(username, hash);
}
