// The port every sending provider implements, the messages it carries, and the default provider (nothing leaves the machine).
import type { Channel } from '../../stores/ports/communications.js';

export interface EmailMessage {
  channel: 'email';
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  from?: string;
}
export interface PushMessage {
  channel: 'push';
  userId: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
  devices: string[];
}
export interface SmsMessage {
  channel: 'sms';
  to: string[];
  body: string;
  from?: string;
}
export type Message = EmailMessage | PushMessage | SmsMessage;

/** A provider delivers or throws (the job is retried); what it answers is kept in the outbox record. */
export interface Provider {
  readonly name: string;
  send(message: Message): Promise<{ messageId?: string }>;
  close?(): void;
}

/**
 * The default: delivering is recording the message in the outbox (MongoDB), which the worker does for every
 * provider once it has delivered; so this one only says it took the message.
 */
export const storeProvider = (channel: Channel): Provider => ({ name: `store:${channel}`, send: () => Promise.resolve({}) });
