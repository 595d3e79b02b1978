// The process logger: pino, with every credential-bearing field redacted.
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACT = [
  'password', '*.password', 'token', '*.token', 'masterkey', '*.masterkey', 'MASTER_KEY', '*.MASTER_KEY',
  'req.headers.authorization', 'req.headers.masterkey', 'headers.authorization', 'headers.masterkey',
  'secret', '*.secret', 'refreshToken', '*.refreshToken',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } });
}
