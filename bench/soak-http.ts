// The soak load generator's HTTP client: keep-alive JSON calls that report the status instead of throwing.
import { Agent, request } from 'node:http';

// Keep-alive: a soak that opened a connection per call would measure TCP set-up and fill TIME_WAIT, not the service.
// A timeout is what lets Node's agent honour the server's `Keep-Alive: timeout=5` (it then drops idle connections after
// 4 s, before the server does); without one it keeps them, and a burst reuses one the server is closing (ECONNRESET).
const agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: 30_000 });

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** status 0: the connection failed or timed out (30 s). */
export function call(url: string, method: string, headers: Record<string, string>, body?: unknown, retried = false): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(url, {
      method,
      agent,
      timeout: 30_000,
      headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch { /* not JSON: the status says enough */ }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on('error', () => resolve({ status: 0, body: null }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      // The server closed an idle keep-alive connection just as this request went out on it: nothing reached the
      // service, so once more on a new connection (what Node's documentation of reusedSocket advises).
      if (req.reusedSocket && e.code === 'ECONNRESET' && !retried) return void call(url, method, headers, body, true).then(resolve);
      resolve({ status: 0, body: { error: e.code ?? e.message } });
    });
    req.end(payload);
  });
}
