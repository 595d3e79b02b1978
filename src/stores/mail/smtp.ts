// The SMTP mailer (nodemailer): one transport per mailer, a connection per message.
import nodemailer from 'nodemailer';
import type { MailReceipt, OpenMailer } from '../ports/mail.js';

type Address = string | { address: string };
const addresses = (list: Address[] | undefined): string[] => (list ?? []).map((a) => (typeof a === 'string' ? a : a.address));

export const smtpMailer: OpenMailer = (smtp) => {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.auth ? { user: smtp.auth.user, pass: smtp.auth.pass } : undefined,
    connectionTimeout: smtp.timeoutMs,
    greetingTimeout: smtp.timeoutMs,
    socketTimeout: smtp.timeoutMs,
    logger: false,
    debug: false,
  });
  let closed = false;
  return {
    async send(message): Promise<MailReceipt> {
      // A transport without a pool opens a connection per message, so it would go on sending after close.
      if (closed) throw new Error('the mailer is closed');
      const info = await transport.sendMail({ from: message.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      const accepted = addresses(info.accepted as Address[]);
      // nodemailer rejects when the server refused every recipient; this keeps the port's promise if it ever does not.
      if (!accepted.length) throw new Error(`every recipient refused: ${info.response}`);
      return { messageId: info.messageId, accepted, rejected: addresses(info.rejected as Address[]), response: info.response };
    },
    close() {
      if (closed) return;
      closed = true;
      transport.close();
    },
  };
};
