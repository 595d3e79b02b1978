// In-memory twin of the MongoDB user store: users unique by id and by (lowercased) email.
import type { UserRecord, UserStore } from '../ports/users.js';
import { copy } from './copy.js';

export function memoryUserStore(): UserStore {
  const users = new Map<string, UserRecord>();
  return {
    async insert(user) {
      if (users.has(user._id) || [...users.values()].some((u) => u.email === user.email)) return null;
      users.set(user._id, copy(user));
      return user;
    },
    async findByEmail(email) {
      return copy([...users.values()].find((u) => u.email === email) ?? null);
    },
    async findById(id) {
      return copy(users.get(id) ?? null);
    },
    async findByIds(ids) {
      return [...new Set(ids)].flatMap((id) => (users.has(id) ? [copy(users.get(id)!)] : []));
    },
  };
}
