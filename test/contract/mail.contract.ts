// The mail port's contract: what every mailer (SMTP through nodemailer, the in-memory twin) must do, as describe/it blocks.
import type { Mailer, OpenMailer, SmtpSettings } from '../../src/stores/ports/mail.js';

/** A message as the server received it: its envelope, its Subject header, and its content (body parts, as sent). */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  content: string;
}

export interface MailServerUnderTest {
  /** Settings that reach the server (with its credentials, when it was made to want some). */
  settings: SmtpSettings;
  /** Settings of a server that is not there. */
  unreachable: SmtpSettings;
  open: OpenMailer;
  received(): ReceivedMail[];
  /** Decides each recipient: a reply to refuse it with (4xx later, 5xx never), or null to take it. */
  refuse(decide: (rcpt: string) => { code: number; message: string } | null): void;
  cleanup(): Promise<void>;
}

const AUTH = { user: 'mailer', pass: 'secret-pass' };

export function mailContract(name: string, make: (auth?: { user: string; pass: string }) => Promise<MailServerUnderTest>): void {
  describe(`mail contract: ${name}`, () => {
    let server: MailServerUnderTest;
    let mailers: Mailer[] = [];
    const open = (settings: SmtpSettings) => {
      const m = server.open(settings);
      mailers.push(m);
      return m;
    };
    beforeAll(async () => {
      server = await make();
    });
    afterAll(async () => {
      await server?.cleanup();
    });
    beforeEach(() => {
      server.refuse(() => null);
    });
    afterEach(() => {
      for (const m of mailers) m.close();
      mailers = [];
    });

    it('delivers a message to its recipients, with its sender, subject and text', async () => {
      const before = server.received().length;
      const receipt = await open(server.settings).send({ from: 'app@example.com', to: ['a@example.com', 'b@example.com'], subject: 'Hello there', text: 'First line of the text' });
      expect(receipt.messageId).toMatch(/\S/);
      expect(receipt.accepted).toEqual(['a@example.com', 'b@example.com']);
      expect(receipt.rejected).toEqual([]);
      const got = server.received().slice(before);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ from: 'app@example.com', to: ['a@example.com', 'b@example.com'], subject: 'Hello there' });
      expect(got[0]!.content).toContain('First line of the text');
    });

    it('delivers the text and the html of a message that has both', async () => {
      const before = server.received().length;
      await open(server.settings).send({ from: 'app@example.com', to: ['c@example.com'], subject: 'Both', text: 'plain words', html: '<p>marked words</p>' });
      const [got] = server.received().slice(before);
      expect(got!.content).toContain('plain words');
      expect(got!.content).toContain('<p>marked words</p>');
    });

    it('sends several messages through one mailer, each once', async () => {
      const before = server.received().length;
      const m = open(server.settings);
      for (const n of [1, 2, 3]) await m.send({ from: 'app@example.com', to: [`n${n}@example.com`], subject: `Number ${n}`, text: 'x' });
      expect(server.received().slice(before).map((r) => r.subject)).toEqual(['Number 1', 'Number 2', 'Number 3']);
    });

    it('resolves when the server took some recipients, naming those it refused', async () => {
      server.refuse((rcpt) => (rcpt.startsWith('bad') ? { code: 550, message: 'No such user' } : null));
      const before = server.received().length;
      const receipt = await open(server.settings).send({ from: 'app@example.com', to: ['bad@example.com', 'good@example.com'], subject: 'Partly', text: 'x' });
      expect(receipt.accepted).toEqual(['good@example.com']);
      expect(receipt.rejected).toEqual(['bad@example.com']);
      expect(server.received().slice(before).map((r) => r.to)).toEqual([['good@example.com']]);
    });

    it('rejects when the server refused every recipient, for now or for good, and delivers nothing', async () => {
      const before = server.received().length;
      server.refuse(() => ({ code: 550, message: 'No such user' }));
      await expect(open(server.settings).send({ from: 'app@example.com', to: ['x@example.com'], subject: 'No', text: 'x' })).rejects.toThrow();
      server.refuse(() => ({ code: 451, message: 'Try again later' }));
      await expect(open(server.settings).send({ from: 'app@example.com', to: ['y@example.com', 'z@example.com'], subject: 'No', text: 'x' })).rejects.toThrow();
      expect(server.received().length).toBe(before);
    });

    it('rejects when the server is not there', async () => {
      await expect(open(server.unreachable).send({ from: 'app@example.com', to: ['a@example.com'], subject: 'Lost', text: 'x' })).rejects.toThrow();
    });

    it('refuses to send once closed; closing twice is fine', async () => {
      const before = server.received().length;
      const m = open(server.settings);
      m.close();
      m.close();
      await expect(m.send({ from: 'app@example.com', to: ['a@example.com'], subject: 'After close', text: 'x' })).rejects.toThrow();
      expect(server.received().length).toBe(before);
    });
  });

  mailCredentialsContract(name, make);
}

/** A server that wants credentials: the right ones send, wrong ones or none are refused. */
function mailCredentialsContract(name: string, make: (auth?: { user: string; pass: string }) => Promise<MailServerUnderTest>): void {
  describe(`mail contract: ${name}, a server that wants credentials`, () => {
    let server: MailServerUnderTest;
    const mailers: Mailer[] = [];
    beforeAll(async () => {
      server = await make(AUTH);
    });
    afterAll(async () => {
      for (const m of mailers) m.close();
      await server?.cleanup();
    });

    it('sends with the right credentials, and rejects the wrong ones or none', async () => {
      const send = (settings: SmtpSettings) => {
        const m = server.open(settings);
        mailers.push(m);
        return m.send({ from: 'app@example.com', to: ['a@example.com'], subject: 'Signed in', text: 'x' });
      };
      const { auth: _auth, ...without } = server.settings;
      await expect(send({ ...server.settings, auth: { ...AUTH, pass: 'wrong' } })).rejects.toThrow();
      await expect(send(without)).rejects.toThrow();
      expect(server.received()).toHaveLength(0);
      await expect(send(server.settings)).resolves.toMatchObject({ accepted: ['a@example.com'] });
      expect(server.received()).toHaveLength(1);
    });
  });
}
