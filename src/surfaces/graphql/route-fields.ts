// GraphQL fields derived from registry routes (both surfaces): one per route, named by its id, flat JSON arguments.
import { Readable } from 'node:stream';
import type { GraphQLFieldConfig, GraphQLFieldConfigArgumentMap } from 'graphql';
import { flatArgs, splitArgs } from '../flat-args.js';
import { collected, type Caller, type Pipeline, type RawInput } from '../pipeline.js';
import { label, type Route } from '../registry.js';
import { JSONScalar } from './json-scalar.js';
import { STREAMED_BODY } from './limits.js';

export type Fields = Record<string, GraphQLFieldConfig<unknown, Caller>>;

/** Whether a route answers bytes (a file, a page): GraphQL answers JSON only, so such a route stays REST-only. */
export const answersBytes = (r: Route) => (r.http.produces ?? ['application/json']).some((t) => t !== 'application/json');

/**
 * A route that reads its JSON body as a stream (an upload's base64 `data`, never held whole over REST) gets the
 * arguments as that JSON text, as REST would hand it over; the GraphQL request that carried them is bounded already.
 */
function asStreamed(r: Route, raw: RawInput, caller: Caller): { raw: RawInput; caller: Caller } {
  if (!r.http.streamJson) return { raw, caller };
  const text = JSON.stringify(raw.body ?? {});
  return { raw: { params: raw.params, query: raw.query, stream: Readable.from([text]) },
    caller: { ...caller, headers: { ...caller.headers, 'content-type': 'application/json' } } };
}

/** One field running `r` through the pipeline (validation, authorization, rate limit: what the REST call costs). */
function routeField(pipeline: Pipeline, r: Route): GraphQLFieldConfig<unknown, Caller> {
  const flat = flatArgs(r);
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const a of flat.args) args[a.name] = { type: JSONScalar, description: `${a.where}${a.required ? ', required' : ''}` };
  for (const where of Object.keys(flat.whole)) args[where] = { type: JSONScalar, description: `the whole ${where}` };
  return {
    type: JSONScalar,
    description: `${label(r)}: ${r.summary}`,
    args,
    // The document limits allow one such field per request (limits.ts): each copies its arguments into a body.
    ...(r.http.streamJson ? { extensions: { [STREAMED_BODY]: true } } : {}),
    resolve: async (_src, values: Record<string, unknown>, caller) => {
      const sent = asStreamed(r, splitArgs(r, flat, values), caller);
      const reply = await collected(await pipeline.invoke(r, sent.raw, sent.caller));
      return reply.text ?? reply.body ?? {};
    },
  };
}

/** The routes' fields by id: GET routes are queries, the others mutations. */
export function routeFields(pipeline: Pipeline, routes: readonly Route[]): { query: Fields; mutation: Fields } {
  const query: Fields = {};
  const mutation: Fields = {};
  for (const r of routes) (r.http.method === 'get' ? query : mutation)[r.id] = routeField(pipeline, r);
  return { query, mutation };
}
