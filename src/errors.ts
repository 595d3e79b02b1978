// The one error catalog: every code the service returns, its HTTP status and default message.

export const CATALOG = {
  BAD_REQUEST: [400, 'The request is malformed'],
  VALIDATION_FAILED: [400, 'The request does not match the expected shape'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is too large'],
  HEADERS_TOO_LARGE: [431, 'The request line or headers are too large'],
  UNAUTHENTICATED: [401, 'Credentials are missing or invalid'],
  TOKEN_EXPIRED: [401, 'The token has expired'],
  FORBIDDEN: [403, 'Not allowed'],
  NOT_FOUND: [404, 'Not found'],
  ROUTE_NOT_FOUND: [404, 'No such route'],
  FUNCTION_NOT_FOUND: [404, 'No such custom function'],
  SCHEMA_NOT_FOUND: [404, 'No such schema'],
  VERSION_CONFLICT: [409, 'The version exists with different content'],
  ALREADY_EXISTS: [409, 'Already exists'],
  SCHEMA_DEFINITION: [409, 'The definition is the one a database schema registered; send its next version to replace it'],
  MODULE_DEFINITION: [409, 'The definition is built in or one a module registered; send its next version to replace it'],
  BUSY: [409, 'Another operation of this kind is running; retry when it ends'],
  UNKNOWN_TYPE: [422, 'The type has no definition'],
  INVALID_DEFINITION: [422, 'The resource definition is not valid'],
  RELATION_NOT_DEFINED: [422, 'The resource type does not declare this relation'],
  RELATION_NOT_ALLOWED: [422, 'The subject type is not allowed for this relation'],
  PERMISSION_NOT_DEFINED: [422, 'The resource type does not declare this permission'],
  BUILTIN_DEFINITION: [422, 'Built-in definitions cannot be deleted'],
  LIST_TOO_LARGE: [422, 'Too many readable documents to sort or filter'],
  FUNCTION_OUT_OF_DATE: [422, 'The custom endpoint refers to a schema or field that no longer exists'],
  SUBSCRIPTION_LIMIT: [422, 'This connection holds as many subscriptions as it may'],
  RANGE_NOT_SATISFIABLE: [416, 'The requested byte range is not in the file'],
  RATE_LIMITED: [429, 'Too many requests'],
  NOT_READY: [503, 'The service is not ready'],
  STORE_UNAVAILABLE: [503, 'A store the service needs is unavailable; retry shortly'],
  INDEX_BEHIND: [503, 'The index has not reached the requested revision'],
  INTERNAL: [500, 'Internal error'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof CATALOG;

export class AppError extends Error {
  readonly status: number;
  constructor(readonly code: ErrorCode, message?: string, readonly details: unknown[] = []) {
    super(message ?? CATALOG[code][1]);
    this.status = CATALOG[code][0];
  }
}

export const fail = (code: ErrorCode, message?: string, details?: unknown[]): never => {
  throw new AppError(code, message, details);
};

/** Admin body: detailed. */
export const adminErrorBody = (e: AppError) => ({ status: e.status, code: e.code, message: e.message, details: e.details });
/** Client body: streamlined. */
export const clientErrorBody = (e: AppError) => ({ code: e.code, message: e.message });

/** 416 with the file's size, sent as `Content-Range: bytes *\/<size>` (RFC 9110 section 15.5.17). */
export class RangeNotSatisfiable extends AppError {
  constructor(readonly size: number) {
    super('RANGE_NOT_SATISFIABLE', `The file has ${size} bytes; the range asked for starts past its end`);
  }
}

/** 429 with the seconds to wait, sent as Retry-After. */
export class RateLimited extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `Too many requests; retry in ${retryAfterSeconds} s`);
  }
}
