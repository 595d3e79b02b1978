// The SMTP email provider (nodemailer): one transport per config value, rebuilt when the config changes.
import nodemailer from 'nodemailer';
import type { CommunicationsConfig } from '../config/communications-config.js';
import type { Message, Provider } from './provider.js';

export function smtpProvider(email: CommunicationsConfig['email']): Provider {
  const { smtp } = email;
  const transport = nodemailer.createTransport({
    host: smtp.host, port: smtp.port, secure: smtp.secure, auth: smtp.auth ? { user: smtp.auth.user, pass: smtp.auth.pass } : undefined,
    connectionTimeout: smtp.timeoutMs, greetingTimeout: smtp.timeoutMs, socketTimeout: smtp.timeoutMs,
    logger: false, debug: false,
  });
  return {
    name: 'smtp',
    async send(message: Message) {
      if (message.channel !== 'email') throw new Error(`the smtp provider sends email, not ${message.channel}`);
      const info = await transport.sendMail({ from: message.from ?? email.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      const rejected = (info.rejected ?? []).length;
      // A recipient refused while others were accepted: retrying would send the accepted ones twice, so it is kept as sent.
      if (rejected && !(info.accepted ?? []).length) throw new Error(`every recipient refused: ${info.response}`);
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}
