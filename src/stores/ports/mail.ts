// Sending email through a mail server (SMTP): one message at a time to its recipients, and what the server answered.

/** How to reach the server: TLS from the first byte when `secure` (else STARTTLS when offered); `timeoutMs` bounds each step. */
export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  timeoutMs: number;
}

export interface MailMessage {
  from: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
}

/** The server's answer: the recipients it took and those it refused, in the order given. */
export interface MailReceipt {
  messageId: string;
  accepted: string[];
  rejected: string[];
  response: string;
}

export interface Mailer {
  /**
   * Hands the message to the server. Resolves once the server took it for at least one recipient (those it refused are
   * in `rejected`); rejects when it took it for none, refused the credentials, or could not be reached in time.
   */
  send(message: MailMessage): Promise<MailReceipt>;
  /** Ends the mailer: a send begun before finishes, a later one rejects. Closing twice is fine. */
  close(): void;
}

/** Builds a mailer for these settings; nothing connects before its first send. */
export type OpenMailer = (settings: SmtpSettings) => Mailer;
