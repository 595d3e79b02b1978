// The process logger: pino, with every credential-bearing field redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACT = [
  'password',
  '*.password',
  'token',
  '*.token',
  'masterkey',
  '*.masterkey',
  'MASTER_KEY',
  '*.MASTER_KEY',
  'req.headers.authorization',
  'req.headers.masterkey',
  'headers.authorization',
  'headers.masterkey',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'headers["proxy-authorization"]',
  // The browser form of the socket credentials carries the token in the subprotocol header.
  'req.headers["sec-websocket-protocol"]',
  'headers["sec-websocket-protocol"]',
  'secret',
  '*.secret',
  'refreshToken',
  '*.refreshToken',
];

/** `destination`: where lines go (standard output unless given; tests read them). */
export function createLogger(level: string, destination?: { write(line: string): void }): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
