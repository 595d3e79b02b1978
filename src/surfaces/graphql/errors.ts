// GraphQL's side of the neutral error: `extensions.code` and `extensions.status` from the catalog, plus details on the admin surface.
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, CATALOG, type ErrorCode } from '../../errors.js';
import type { Pipeline } from '../pipeline.js';
import type { Surface } from '../registry.js';

/** Apollo's and graphql-js's codes for documents that do not parse, validate or coerce: malformed input, as REST would say. */
const INPUT_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'OPERATION_RESOLUTION_FAILURE', 'BAD_REQUEST']);

/** An AppError as a GraphQLError; Apollo answers with its HTTP status when it ends the request (authentication, rate limits). */
export const toGraphQLError = (e: AppError) => new GraphQLError(e.message, { extensions: { code: e.code, status: e.status, http: { status: e.status } } });

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
      message: e.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: e.code, status: e.status, ...(surface === 'admin' && e.details.length ? { details: e.details } : {}) },
    };
  };
}

/**
 * No stack for an error that is the caller's (nor for what it wraps). Assigned, not defined: V8 formats the recorded
 * stack when the property is redefined. With none, graphql-js records a fresh one for Apollo's wrapper, formatted only
 * if read, where it would otherwise copy (and so format) this one, and define its own over the one it recorded.
 */
function withoutStack(e: Error): void {
  e.stack = '';
  const inner = (e as GraphQLError).originalError;
  if (inner instanceof Error && inner !== e) withoutStack(inner);
}

/**
 * A document that does not parse or validate is the caller's error: its stack is graphql-js's parser or visitor,
 * never sent (includeStacktraceInErrorResponses is off) nor logged (formatError makes a new VALIDATION_FAILED). Apollo
 * formats it anyway when it wraps each error, through source maps when they are on, which cost more than validating
 * the document (a refused document has up to 100 errors).
 */
export const callerErrorStacks: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async parsingDidStart() {
        return async (e?: Error) => {
          if (e) withoutStack(e);
        };
      },
      async validationDidStart() {
        return async (errors?: readonly Error[]) => {
          errors?.forEach(withoutStack);
        };
      },
    };
  },
};
