// A streaming HTTP client for file uploads and downloads: the file goes from disk onto the socket piece by piece.
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Record<string, string | string[] | undefined>;
}

/** Sends `path` as the `file` part of a multipart body (with `fields` before it), streamed from disk. */
export async function uploadFile(url: string, token: string, path: string, fields: Record<string, string> = {}, method = 'POST'): Promise<Answer> {
  const boundary = `----authz${randomBytes(8).toString('hex')}`;
  const head = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')
    + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const size = (await stat(path)).size;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': Buffer.byteLength(head) + size + Buffer.byteLength(tail),
      },
    }, (res) => {
      void readAnswer(res).then(resolve, reject);
    });
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(path);
    file.on('end', () => req.end(tail));
    file.on('error', reject);
    file.pipe(req, { end: false });
  });
}

/** Downloads `url` into `path` as it arrives; the status and headers. */
export function downloadFile(url: string, headers: Record<string, string>, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      pipeline(res, createWriteStream(path)).then(() => resolve({ status: res.statusCode ?? 0, headers: res.headers }), reject);
    }).on('error', reject).end();
  });
}

/** Sends `path` as JSON `{ name, data: <base64> }`, encoding it while it streams from disk (pieces of a multiple of 3 bytes). */
export function uploadBase64(url: string, token: string, path: string, name: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()), headers: res.headers }));
    });
    req.on('error', reject);
    const file = createReadStream(path, { highWaterMark: 3 * 21_845 });
    req.write(`{"name":${JSON.stringify(name)},"data":"`);
    file.on('data', (c) => {
      if (!req.write((c as Buffer).toString('base64'))) {
        file.pause();
        req.once('drain', () => file.resume());
      }
    });
    file.on('end', () => req.end('"}'));
    file.on('error', reject);
  });
}

/**
 * POSTs a body of `head`, `total` bytes of `filler` and `tail`, streamed, and answers as soon as a response comes
 * (a server may refuse it before it is all sent): the status, the body and how many filler bytes were written by then.
 */
export function streamBody(url: string, token: string, contentType: string,
  parts: { head: string; filler: string; total: number; tail: string }): Promise<{ status: number; body: any; sent: number }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { head, filler, total, tail } = parts;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': Buffer.byteLength(head) + total + Buffer.byteLength(tail) },
    }, (res) => {
      answered = true;
      const got: Buffer[] = [];
      res.on('data', (c: Buffer) => got.push(c));
      res.on('end', () => {
        const text = Buffer.concat(got).toString();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, body, sent });
      });
    });
    // Writes after a refusal fail (the server closes the connection once it has answered): the answer is what counts.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const block = filler.repeat(Math.ceil(65536 / filler.length)).slice(0, 65536);
    req.write(head);
    const pump = () => {
      while (sent < total && !answered) {
        const n = Math.min(block.length, total - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.slice(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (sent >= total && !answered) req.end(tail);
    };
    pump();
  });
}

/** An HTTP answer read whole: its status, its body parsed as JSON when it is JSON, and its headers. */
export function readAnswer(res: IncomingMessage): Promise<{ status: number; body: any; headers: IncomingHttpHeaders }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (c: Buffer) => parts.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(parts).toString();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch { /* not JSON */ }
      resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
    });
  });
}
