// Exit codes CI can rely on, and the error that carries one: each failure class has its own code.
export const EXIT = {
  /** Everything passed; the check was allowed (or was what --expect asked). */
  ok: 0,
  /** An assertion failed: a model test, a validation problem, a check denied (or not what --expect asked). */
  failed: 1,
  /** The command line is wrong: unknown command or flag, missing argument, bad value. */
  usage: 2,
  /** An input file cannot be read or parsed, or is not in the expected format. */
  input: 3,
  /** The server refused the request (4xx: bad input, not found, conflict). */
  refused: 4,
  /** No credentials, or the server refused them (401, 403). */
  auth: 5,
  /** The server cannot be reached, timed out or failed (5xx). */
  unavailable: 6,
  /** A check was denied because it names a type or permission the model does not have (a typo?): the reason says which. */
  unknownName: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(readonly exit: ExitCode, message: string, readonly details?: unknown) {
    super(message);
  }
}

export const usage = (message: string) => new CliError(EXIT.usage, message);
