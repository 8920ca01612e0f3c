import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { SmtpMailer } from '../../src/mailer/smtp';
import { type OutgoingMessage, PermanentMailError, TransientMailError } from '../../src/mailer/types';
import { freePort } from '../support/ports';

interface Received {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
}

/** Local recipients whose RCPT TO the server refuses with this reply. */
const REFUSALS: Record<string, { code: number; text: string }> = {
  'nobody@example.com': { code: 550, text: '5.1.1 No such user' },
  'greylisted@example.com': { code: 451, text: '4.7.1 Greylisted, try again later' },
};

/** A local SMTP server that keeps what it accepts, refuses the addresses in REFUSALS and the message to a full mailbox. */
async function startSmtpServer(options: { password?: string } = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: options.password === undefined,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, callback) {
      if (auth.password === options.password) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const refusal = REFUSALS[address.address];
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (session.envelope.rcptTo.some((r) => r.address === 'mailbox-full@example.com')) {
          return callback(Object.assign(new Error('5.2.2 Mailbox full'), { responseCode: 552 }));
        }
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const message: OutgoingMessage = {
  from: 'Herald <no-reply@herald.test>',
  to: ['ada@example.com', 'grace@example.com'],
  replyTo: 'support@herald.test',
  subject: 'Your invoice',
  html: '<p>Invoice <b>#7</b> attached</p>',
  text: 'Invoice #7 attached',
  headers: { 'X-Herald-Email': 'e-7', 'List-Unsubscribe': '<https://herald.test/unsubscribe/t>' },
  attachments: [{ filename: 'invoice.csv', content: Buffer.from('item,amount\nplan,42\n'), contentType: 'text/csv' }],
};

describe('SmtpMailer', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailer: SmtpMailer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`);
  });
  afterAll(async () => {
    await mailer.close();
    await smtp.close();
  });

  it('delivers recipients, subject, both bodies, custom headers and the attachment', async () => {
    const sent = await mailer.send(message);

    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.mailFrom).toBe('no-reply@herald.test');
    expect(mail.rcptTo).toEqual(['ada@example.com', 'grace@example.com']);

    const parsed = await PostalMime.parse(mail.raw);
    expect(parsed.messageId).toBe(sent.messageId);
    expect(parsed.from).toEqual({ name: 'Herald', address: 'no-reply@herald.test' });
    expect(parsed.to?.map((a) => a.address)).toEqual(['ada@example.com', 'grace@example.com']);
    expect(parsed.replyTo).toEqual([{ name: '', address: 'support@herald.test' }]);
    expect(parsed.subject).toBe('Your invoice');
    expect(parsed.html?.trim()).toBe('<p>Invoice <b>#7</b> attached</p>');
    expect(parsed.text?.trim()).toBe('Invoice #7 attached');
    expect(parsed.headers.find((h) => h.key === 'x-herald-email')?.value).toBe('e-7');
    expect(parsed.headers.find((h) => h.key === 'list-unsubscribe')?.value).toBe('<https://herald.test/unsubscribe/t>');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({ filename: 'invoice.csv', mimeType: 'text/csv' });
    expect(Buffer.from(parsed.attachments[0].content as ArrayBuffer).toString()).toBe('item,amount\nplan,42\n');
  });

  it('takes the envelope from `from` and `to` alone, whatever recipient headers the message carries', async () => {
    smtp.received.length = 0;
    const headers = { Bcc: 'bcc@attacker.test', cc: 'cc@attacker.test', TO: 'to@attacker.test', 'Return-Path': 'bounce@attacker.test' };

    await mailer.send({ ...message, to: ['"Ada L" <ada@example.com>'], headers });

    const [mail] = smtp.received;
    expect(mail.rcptTo).toEqual(['ada@example.com']);
    expect(mail.mailFrom).toBe('no-reply@herald.test');
  });

  it('maps a 550 refusal to a PermanentMailError', async () => {
    const error = await mailer.send({ ...message, to: ['nobody@example.com'] }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(PermanentMailError);
    expect(error).toMatchObject({ code: '550' });
    expect((error as Error).message).toContain('No such user');
  });

  it('maps a 552 refusal of the message data to a PermanentMailError', async () => {
    const error = await mailer.send({ ...message, to: ['mailbox-full@example.com'] }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(PermanentMailError);
    expect(error).toMatchObject({ code: '552' });
  });

  it('maps a 451 refusal to a TransientMailError', async () => {
    const error = await mailer.send({ ...message, to: ['greylisted@example.com'] }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(TransientMailError);
    expect(error).toMatchObject({ code: '451' });
  });

  it('maps a refused connection to a TransientMailError', async () => {
    const unreachable = new SmtpMailer(`smtp://127.0.0.1:${await freePort()}`);

    await expect(unreachable.send(message)).rejects.toBeInstanceOf(TransientMailError);
    await unreachable.close();
  });

  it('maps rejected credentials to a TransientMailError: the configuration is wrong, not the message', async () => {
    const guarded = await startSmtpServer({ password: 'right' });
    const wrong = new SmtpMailer(`smtp://herald:wrong@127.0.0.1:${guarded.port}`);
    const right = new SmtpMailer(`smtp://herald:right@127.0.0.1:${guarded.port}`);

    const error = await wrong.send(message).catch((err: unknown) => err);
    await right.send(message);

    expect(error).toBeInstanceOf(TransientMailError);
    expect(error).toMatchObject({ code: '535' });
    expect(guarded.received).toHaveLength(1);
    await Promise.all([wrong.close(), right.close(), guarded.close()]);
  });
});
