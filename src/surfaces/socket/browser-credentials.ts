// The browser form of the realtime socket's credentials: the access token as a Sec-WebSocket-Protocol entry.
// A browser's WebSocket cannot set Authorization, and a token in the URL ends up in logs and histories; the protocol
// list is the one header a page may set. The server answers with the plain protocol name, never the token.
import { AppError } from '../../errors.js';

/** The subprotocol the server selects (and the browser must offer beside the token). */
export const SOCKET_PROTOCOL = 'authz';
/** `authz.bearer.<access token>`: an access token is base64url with dots, all allowed in a protocol name. */
export const BEARER_PROTOCOL_PREFIX = `${SOCKET_PROTOCOL}.bearer.`;

type Headers = Record<string, string | undefined>;

/**
 * The upgrade's headers with the token of a `authz.bearer.<token>` entry as `Authorization: Bearer <token>`, and
 * the protocol list removed (it held the token). Without such an entry the headers are returned as they are.
 */
export function upgradeCredentials(headers: Headers): Headers {
  const raw = headers['sec-websocket-protocol'];
  if (raw === undefined) return headers;
  const offered = raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
  const bearers = offered.filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (bearers.length === 0) return headers;
  if (bearers.length > 1) throw new AppError('BAD_REQUEST', `Offer one ${BEARER_PROTOCOL_PREFIX}<token> protocol, not ${bearers.length}`);
  if (headers.authorization !== undefined) throw new AppError('BAD_REQUEST', 'Send the access token once: in Authorization or as a protocol, not both');
  // Without it the server could only answer with the token itself, which a browser would then show and log.
  if (!offered.includes(SOCKET_PROTOCOL)) {
    throw new AppError('BAD_REQUEST', `Offer the protocol ${SOCKET_PROTOCOL} beside ${BEARER_PROTOCOL_PREFIX}<token>: the server selects it`);
  }
  const { 'sec-websocket-protocol': _held, ...rest } = headers;
  return { ...rest, authorization: `Bearer ${bearers[0]!.slice(BEARER_PROTOCOL_PREFIX.length)}` };
}

/** ws's `handleProtocols`: the plain name when offered, else none (a client that offered nothing gets nothing). */
export const selectProtocol = (offered: Set<string>): string | false => (offered.has(SOCKET_PROTOCOL) ? SOCKET_PROTOCOL : false);
