// The logger redacts every header that carries a credential, whichever transport's line it is in.
import { createLogger } from '../../src/log.js';

it('redacts authorization, proxy-authorization, masterkey, cookie and the socket subprotocol', () => {
  const lines: string[] = [];
  const log = createLogger('info', { write: (l: string) => {
    lines.push(l);
  } });
  const secret = 'sekrit-value-123';
  log.info({ req: { headers: {
    authorization: `Bearer ${secret}`,
    'proxy-authorization': `Basic ${secret}`,
    masterkey: secret,
    cookie: `s=${secret}`,
    'sec-websocket-protocol': `authz, authz.bearer.${secret}`,
    'user-agent': 'kept',
  } } }, 'request completed');
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain(secret);
  expect(JSON.parse(lines[0]!).req.headers).toEqual({
    authorization: '[redacted]',
    'proxy-authorization': '[redacted]',
    masterkey: '[redacted]',
    cookie: '[redacted]',
    'sec-websocket-protocol': '[redacted]',
    'user-agent': 'kept',
  });
});
