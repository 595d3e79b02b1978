// The sockets' one error mapping: anything thrown, as the `error` message a client reads, with what it refers to.
import type { AppError } from '../../errors.js';
import type { Neutral } from '../http/wire.js';

/** What an error message refers to: the client's message id, a chat room. */
export interface ErrorAbout {
  id?: string;
  room?: string;
}

export interface SocketError {
  error: AppError;
  message: { type: 'error'; code: string; message: string } & ErrorAbout;
}

export function socketError(neutral: Neutral, e: unknown, where: string, about: ErrorAbout = {}): SocketError {
  const error = neutral(e, where);
  const refers = Object.fromEntries(Object.entries(about).filter(([, v]) => v !== undefined)) as ErrorAbout;
  return { error, message: { type: 'error', ...refers, code: error.code, message: error.message } };
}
