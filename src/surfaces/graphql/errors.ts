// GraphQL's side of the neutral error: `extensions.code` and `extensions.status` from the catalog, plus details on the admin surface.
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, CATALOG, type ErrorCode } from '../../errors.js';
import type { Pipeline } from '../pipeline.js';
import type { Surface } from '../registry.js';

/** Apollo's and graphql-js's codes for documents that do not parse, validate or coerce: malformed input, as REST would say. */
const INPUT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'OPERATION_RESOLUTION_FAILURE', 'BAD_REQUEST']);

/** An AppError as a GraphQLError; Apollo answers with its HTTP status when it ends the request (authentication, rate limits). */
export const toGraphQLError = (e: AppError) =>
  new GraphQLError(e.message, { extensions: { code: e.code, status: e.status, http: { status: e.status } } });

export function formatError(surface: Surface, pipeline: Pipeline) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const code = formatted.extensions?.code;
    let e: AppError;
    if (original instanceof AppError) e = original;
    // Apollo's own refusals named with a catalog code (BAD_REQUEST) get the status every error body carries.
    else if (original instanceof GraphQLError && typeof code === 'string' && code in CATALOG) {
      return { ...formatted, extensions: { ...formatted.extensions, status: formatted.extensions?.status ?? CATALOG[code as ErrorCode][0] } };
    }
    else if (original instanceof GraphQLError && typeof code === 'string' && INPUT_CODES.has(code)) e = new AppError('VALIDATION_FAILED', formatted.message);
    else e = pipeline.neutral(original, 'POST /graphql');
    return {
      message: e.message, locations: formatted.locations, path: formatted.path,
      extensions: { code: e.code, status: e.status, ...(surface === 'admin' && e.details.length ? { details: e.details } : {}) },
    };
  };
}
