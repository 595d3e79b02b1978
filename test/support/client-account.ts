// A user of the client surface for a test: registered, logged in, and their id and access token.
import type { TestService } from './service.js';

export async function clientAccount(svc: TestService, email: string): Promise<{ id: string; token: string }> {
  const body = { email, password: 'correct horse' };
  expect((await svc.http('POST', `${svc.client}/authentication/local/new`, { body, headers: {} })).status).toBe(201);
  const r = await svc.http('POST', `${svc.client}/authentication/local`, { body, headers: {} });
  return { id: r.body.userId as string, token: r.body.accessToken as string };
}

/** A call on the client surface, with a user's access token when given. */
export const clientCall = (svc: TestService, method: string, path: string, token?: string, body?: unknown) =>
  svc.http(method, `${svc.client}${path}`, { body, headers: token ? { authorization: `Bearer ${token}` } : {} });
