// An upload whose answer comes only once the server has applied all of it (authz import): node:http, not fetch,
// because fetch's undici gives up on an answer after 300 s (UND_ERR_HEADERS_TIMEOUT), and a large import takes longer.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** An upload's answer is a report; one this large is not. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

const headersOf = (h: IncomingHttpHeaders) => {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
  return out;
};

/**
 * Sends `body` and resolves to the answer, read whole (answers to uploads are small reports). Only the connection
 * is timed (`connectMs`): once connected, the server may take as long as the import does.
 */
export function upload(url: string, init: { method: string; headers: Record<string, string>; body: Readable; connectMs: number }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const send = new URL(url).protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: init.method, headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) res.destroy(new Error(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 502;
        const nobody = status === 204 || status === 304;
        resolve(new Response(nobody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: headersOf(res.headers) }));
      });
    });
    req.on('error', reject);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      socket.setTimeout(init.connectMs, () => req.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
      socket.once('connect', () => socket.setTimeout(0));
    });
    // A server that answers before reading everything (it refused the document) ends the upload: that is its answer.
    pipeline(init.body, req).catch((e: unknown) => {
      if (!req.writableFinished) reject(e);
    });
  });
}
