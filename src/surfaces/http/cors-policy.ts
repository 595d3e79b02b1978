// Which browser origins may call a surface (CORS): none on the admin surface, the configured ones on the client surface.
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import { AppError } from '../../errors.js';
import type { Surface } from '../registry.js';
import { sendError } from './wire.js';

/** Answers true when it has answered the request itself (a preflight); otherwise the request goes on, with headers set. */
export type CorsGate = (req: IncomingMessage, res: ServerResponse) => boolean;

/** `origins`: exact origins (`https://app.example.com`) or `*`; ignored on the admin surface, which no browser page may call. */
export function corsPolicy(surface: Surface, origins: readonly string[]): CorsGate {
  const any = origins.includes('*');
  const allowed = (origin: string) => surface === 'client' && (any || origins.includes(origin));
  // Called only for origins already allowed, so reflecting the request's origin allows exactly the list. Credentials
  // travel in the Authorization header, never in cookies, so none are allowed.
  const allow = cors({ origin: any ? '*' : true, maxAge: 600, exposedHeaders: ['Retry-After'] });
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!allowed(origin)) {
      // A plain request is answered without Access-Control-Allow-Origin, so the browser withholds it from the page.
      if (!preflight) return false;
      sendError(surface, res, new AppError('FORBIDDEN', 'Cross-origin calls from this origin are not accepted'));
      return true;
    }
    let passed = false;
    allow(req, res, () => {
      passed = true;
    });
    return !passed;
  };
}
