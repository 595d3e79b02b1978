// A test's WebSocket client: connects with a Bearer token, keeps every message, and waits for the next that matches.
import { WebSocket } from 'ws';

export type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function openSocket(url: string, token: string) {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  const got: Msg[] = [];
  let wake = () => undefined as void;
  ws.on('message', (data) => {
    got.push(JSON.parse(String(data)));
    wake();
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const next = async (match: (m: Msg) => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = got.findIndex(match);
      if (i >= 0) return got.splice(i, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`no such message within ${ms} ms; got ${JSON.stringify(got).slice(0, 400)}`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 20);
      });
    }
  };
  const send = (m: unknown) => ws.send(JSON.stringify(m));
  return { ws, got, next, send };
}
