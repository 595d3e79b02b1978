// A bcrypt hash to compare a password against when no account matches, so an unknown name costs as long as a wrong
// password (accounts cannot be probed by timing). Made on the first such login, in bcrypt's thread pool: made at import,
// it held every start of the service (and every test file that loads it) for a third of a second of CPU.
import bcrypt from 'bcrypt';

/** The cost of the service's own password hashes: the dummy must cost what a real comparison does. */
export const PASSWORD_ROUNDS = 10;

let dummy: Promise<string> | undefined;
export const dummyHash = (): Promise<string> => (dummy ??= bcrypt.hash('not-a-password', PASSWORD_ROUNDS));
