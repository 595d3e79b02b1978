// Typed calls that answer the reply body or throw AuthzApiError: openapi-fetch's methods, unwrapped.
import type { Client, FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import { AuthzApiError } from './api-error.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathsWith<P, M extends Method> = { [K in keyof P]: P[K] extends { [X in M]: unknown } ? K : never }[keyof P];
type RequiredKeys<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
type Args<I> = RequiredKeys<I> extends never ? [(I & Record<string, unknown>)?] : [I & Record<string, unknown>];
type Item<P, Path extends keyof P, M extends Method> = P[Path] extends Record<M, unknown> ? P[Path] : never;

/** `url` is the path as the OpenAPI document writes it (`/authorization/resources/{id}`); `init` its params and body. */
export type Call<P, M extends Method> = <Path extends PathsWith<P, M>, I extends MaybeOptionalInit<Item<P, Path, M>, M>>(url: Path,
  ...init: Args<I>) => Promise<NonNullable<FetchResponse<Item<P, Path, M>[M] & Record<string | number, unknown>, I, `${string}/${string}`>['data']>>;

export interface TypedCalls<P> {
  get: Call<P, 'get'>;
  post: Call<P, 'post'>;
  put: Call<P, 'put'>;
  patch: Call<P, 'patch'>;
  delete: Call<P, 'delete'>;
}

type Answer = { data?: unknown; error?: unknown; response: Response };

async function unwrap(pending: Promise<Answer>): Promise<unknown> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new AuthzApiError(response, error);
  return data;
}

export function typedCalls<P extends object>(api: Client<P>): TypedCalls<P> {
  type Raw = (url: unknown, init?: unknown) => Promise<Answer>;
  const call = (m: Raw) => (url: unknown, init?: unknown) => unwrap(m(url, init));
  return {
    get: call(api.GET as Raw),
    post: call(api.POST as Raw),
    put: call(api.PUT as Raw),
    patch: call(api.PATCH as Raw),
    delete: call(api.DELETE as Raw),
  } as unknown as TypedCalls<P>;
}
