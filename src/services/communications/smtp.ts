// The SMTP email provider: sends through a mailer (the port) built for the config's settings, one per config value.
import type { OpenMailer } from '../../stores/ports/mail.js';
import type { CommunicationsConfig } from '../config/communications-config.js';
import type { Message, Provider } from './provider.js';

export function smtpProvider(email: CommunicationsConfig['email'], open: OpenMailer): Provider {
  const mailer = open(email.smtp);
  return {
    name: 'smtp',
    async send(message: Message) {
      if (message.channel !== 'email') throw new Error(`the smtp provider sends email, not ${message.channel}`);
      // A recipient refused while others were accepted: retrying would send the accepted ones twice, so it is kept as
      // sent; the mailer rejects when every recipient was refused, and the job is retried.
      const sent = await mailer.send({ from: message.from ?? email.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      return { messageId: sent.messageId };
    },
    close: () => mailer.close(),
  };
}
