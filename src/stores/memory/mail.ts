// A mail server in memory and the mailers that send to it: the twin of the SMTP mailer for tests.
import { randomUUID } from 'node:crypto';
import type { MailMessage, MailReceipt, Mailer, OpenMailer, SmtpSettings } from '../ports/mail.js';

export interface MemoryMailServer {
  /** Where a mailer must point to reach this server (another host or port is a server that is not there). */
  settings: SmtpSettings;
  /** The messages taken, in order, each with the recipients it was taken for. */
  received: Array<MailMessage & { accepted: string[] }>;
  /** Decides each recipient: a reply to refuse it with (4xx later, 5xx never), or null to take it. */
  refuse: (rcpt: string) => { code: number; message: string } | null;
  open: OpenMailer;
}

export function memoryMailServer(auth?: { user: string; pass: string }): MemoryMailServer {
  const server: MemoryMailServer = {
    settings: { host: 'memory.invalid', port: 25, secure: false, timeoutMs: 1000, ...(auth ? { auth } : {}) },
    received: [],
    refuse: () => null,
    open: (settings) => mailer(server, settings, auth),
  };
  return server;
}

function mailer(server: MemoryMailServer, settings: SmtpSettings, auth?: { user: string; pass: string }): Mailer {
  let closed = false;
  return {
    async send(message): Promise<MailReceipt> {
      if (closed) throw new Error('the mailer is closed');
      if (settings.host !== server.settings.host || settings.port !== server.settings.port) throw new Error(`connect ECONNREFUSED ${settings.host}:${settings.port}`);
      if (auth && (settings.auth?.user !== auth.user || settings.auth.pass !== auth.pass)) throw new Error('Invalid login: 535 Authentication failed');
      const accepted: string[] = [];
      const rejected: string[] = [];
      for (const rcpt of message.to) (server.refuse(rcpt) ? rejected : accepted).push(rcpt);
      if (!accepted.length) throw new Error("Can't send mail - all recipients were rejected");
      server.received.push({ ...message, to: [...message.to], accepted });
      return { messageId: `<${randomUUID()}@memory.invalid>`, accepted, rejected, response: '250 OK: queued' };
    },
    close() {
      closed = true;
    },
  };
}
