// In-memory twin of the MongoDB admin store: admins unique by username, created or reset by upsert.
import { randomUUID } from 'node:crypto';
import type { AdminRecord, AdminStore } from '../ports/admins.js';
import { copy } from './copy.js';

export function memoryAdminStore(): AdminStore {
  const admins = new Map<string, AdminRecord>();
  const byUsername = (username: string) => [...admins.values()].find((a) => a.username === username) ?? null;
  return {
    async findByUsername(username) {
      return copy(byUsername(username));
    },
    async findById(id) {
      return copy(admins.get(id) ?? null);
    },
    async upsert(username, passwordHash) {
      const found = byUsername(username);
      if (found) found.passwordHash = passwordHash;
      else {
        const admin: AdminRecord = { _id: randomUUID(), username, passwordHash, createdAt: new Date() };
        admins.set(admin._id, admin);
      }
      return copy(byUsername(username)!);
    },
  };
}
