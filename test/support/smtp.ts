// A real SMTP server for tests (the npm smtp-server package) that keeps what it accepts and refuses what a test says to.
import { SMTPServer } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  raw: string;
  user?: string;
}

export interface TestSmtp {
  port: number;
  received: Received[];
  /** Decides each recipient: an SMTP reply code to refuse it with (4xx retry later, 5xx never), or null to take it. */
  refuse: (rcpt: string) => { code: number; message: string } | null;
  close(): Promise<void>;
}

export async function startSmtp(auth?: { user: string; pass: string }): Promise<TestSmtp> {
  const received: Received[] = [];
  const smtp: TestSmtp = { port: 0, received, refuse: () => null, close: async () => undefined };
  const server = new SMTPServer({
    // Plain SMTP on loopback: STARTTLS off, so credentials go without TLS (allowed here only).
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !auth,
    logger: false,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.pass) cb(null, { user: a.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      const no = smtp.refuse(address.address);
      if (!no) {
        cb();
        return;
      }
      cb(Object.assign(new Error(no.message), { responseCode: no.code }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        cb();
      });
    },
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  smtp.port = (server.server.address() as { port: number }).port;
  smtp.close = () => new Promise<void>((res) => server.close(() => res()));
  return smtp;
}
