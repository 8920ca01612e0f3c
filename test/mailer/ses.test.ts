import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetAccountCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import PostalMime from 'postal-mime';
import { SesMailer } from '../../src/mailer/ses';
import { type OutgoingMessage, PermanentMailError, TransientMailError } from '../../src/mailer/types';
import { freePort } from '../support/ports';
import { SesServer } from '../support/ses-server';

const credentials = { accessKeyId: 'AKIDTESTHERALD', secretAccessKey: 'test-secret' };

const message: OutgoingMessage = {
  from: 'Herald <no-reply@herald.test>',
  to: ['ada@example.com'],
  replyTo: 'support@herald.test',
  subject: 'Welcome aboard',
  html: '<p>Hello <b>Ada</b></p>',
  text: 'Hello Ada',
  headers: { 'X-Herald-Campaign': 'c-42' },
  tags: { project: 'p1', email: 'e1' },
};

describe('SesMailer', () => {
  let ses: SesServer;
  let mailer: SesMailer;

  beforeAll(async () => {
    ses = await SesServer.start();
    mailer = new SesMailer({
      region: 'eu-west-1',
      endpoint: ses.endpoint,
      configurationSet: 'herald-events',
      credentials,
    });
  });
  afterEach(() => ses.reset());
  afterAll(async () => {
    await mailer.close();
    await ses.close();
  });

  it('sends a message without attachments as Simple content and returns the SES MessageId', async () => {
    const sent = await mailer.send(message);

    expect(ses.emails).toHaveLength(1);
    const [email] = ses.emails;
    expect(sent.messageId).toBe(email.messageId);
    expect(email.raw).toBeUndefined();
    expect(email.request).toEqual({
      FromEmailAddress: 'Herald <no-reply@herald.test>',
      Destination: { ToAddresses: ['ada@example.com'] },
      ReplyToAddresses: ['support@herald.test'],
      Content: {
        Simple: {
          Subject: { Data: 'Welcome aboard', Charset: 'UTF-8' },
          Body: {
            Html: { Data: '<p>Hello <b>Ada</b></p>', Charset: 'UTF-8' },
            Text: { Data: 'Hello Ada', Charset: 'UTF-8' },
          },
          Headers: [{ Name: 'X-Herald-Campaign', Value: 'c-42' }],
        },
      },
      EmailTags: [
        { Name: 'project', Value: 'p1' },
        { Name: 'email', Value: 'e1' },
      ],
      ConfigurationSetName: 'herald-events',
    });
    expect(email.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTESTHERALD\/\d{8}\/eu-west-1\/ses\//);
  });

  it("uses the message's configuration set over the configured one", async () => {
    await mailer.send({ ...message, configurationSet: 'project-7' });

    expect(ses.emails[0].request.ConfigurationSetName).toBe('project-7');
  });

  it('sends a message with an attachment as a raw MIME message carrying every part', async () => {
    const pdf = Buffer.from('%PDF-1.4 fake invoice \u0000\u00ff', 'latin1');
    const sent = await mailer.send({
      ...message,
      attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
    });

    const [email] = ses.emails;
    expect(sent.messageId).toBe(email.messageId);
    expect(email.request.Content.Simple).toBeUndefined();
    expect(email.request.FromEmailAddress).toBeUndefined();
    expect(email.request.ConfigurationSetName).toBe('herald-events');
    expect(email.request.EmailTags).toEqual([
      { Name: 'project', Value: 'p1' },
      { Name: 'email', Value: 'e1' },
    ]);

    const parsed = await PostalMime.parse(email.raw!);
    expect(parsed.from).toEqual({ name: 'Herald', address: 'no-reply@herald.test' });
    expect(parsed.to).toEqual([{ name: '', address: 'ada@example.com' }]);
    expect(parsed.replyTo).toEqual([{ name: '', address: 'support@herald.test' }]);
    expect(parsed.subject).toBe('Welcome aboard');
    expect(parsed.html?.trim()).toBe('<p>Hello <b>Ada</b></p>');
    expect(parsed.text?.trim()).toBe('Hello Ada');
    expect(parsed.headers.find((h) => h.key === 'x-herald-campaign')?.value).toBe('c-42');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({ filename: 'invoice.pdf', mimeType: 'application/pdf' });
    expect(Buffer.from(parsed.attachments[0].content as ArrayBuffer).equals(pdf)).toBe(true);
  });

  it('names the Destination from `to` alone on the raw path, whatever recipient headers the message carries', async () => {
    await mailer.send({
      ...message,
      to: ['"Zoë Müller" <zoe@example.com>'],
      headers: { Bcc: 'bcc@attacker.test', cc: 'cc@attacker.test', To: 'to@attacker.test' },
      attachments: [{ filename: 'a.txt', content: Buffer.from('a'), contentType: 'text/plain' }],
    });

    const [email] = ses.emails;
    expect(email.raw).toBeDefined();
    expect(email.request.Destination).toEqual({ ToAddresses: ['zoe@example.com'] });
  });

  it('goes raw when a header or address cannot travel as Simple content, and encodes it', async () => {
    await mailer.send({
      ...message,
      from: 'Zoë Müller <zoe@herald.test>',
      headers: { 'X-Greeting': 'Grüße aus Köln' },
    });

    const [email] = ses.emails;
    expect(email.request.Content.Simple).toBeUndefined();
    expect(email.raw!.toString('latin1')).toMatch(/^[\x00-\x7f]*$/);
    const parsed = await PostalMime.parse(email.raw!);
    expect(parsed.from).toEqual({ name: 'Zoë Müller', address: 'zoe@herald.test' });
    const greeting = parsed.headers.find((h) => h.key === 'x-greeting')!.value;
    expect(greeting).toMatch(/^=\?UTF-8\?/);
    expect(PostalMime.decodeWords(greeting)).toBe('Grüße aus Köln');
  });

  it.each([
    [429, 'TooManyRequestsException'],
    [500, 'InternalFailure'],
    [503, 'ServiceUnavailable'],
    [400, 'LimitExceededException'],
    [400, 'SendingPausedException'],
  ])('maps %i %s to a TransientMailError after a single attempt', async (status, errorType) => {
    ses.failNext(1, status, errorType);

    const error = await mailer.send(message).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(TransientMailError);
    expect(error).toMatchObject({ code: errorType });
    expect(ses.requests).toHaveLength(1);
    expect(ses.emails).toHaveLength(0);
  });

  it.each([
    [400, 'MessageRejected'],
    [400, 'MailFromDomainNotVerifiedException'],
    [400, 'BadRequestException'],
    [400, 'AccountSuspendedException'],
    [404, 'NotFoundException'],
  ])('maps %i %s to a PermanentMailError', async (status, errorType) => {
    ses.failNext(1, status, errorType);

    const error = await mailer.send(message).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(PermanentMailError);
    expect(error).toMatchObject({ code: errorType });
    expect((error as Error).message).toContain(errorType);
  });

  it('sends normally once the injected faults are used up', async () => {
    ses.failNext(2, 429, 'TooManyRequestsException');

    await expect(mailer.send(message)).rejects.toBeInstanceOf(TransientMailError);
    await expect(mailer.send(message)).rejects.toBeInstanceOf(TransientMailError);
    const sent = await mailer.send(message);

    expect(ses.emails.map((e) => e.messageId)).toEqual([sent.messageId]);
  });

  it('answers each of many concurrent sends through the shared client with its own outcome', async () => {
    ses.failNext(5, 429, 'TooManyRequestsException');

    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => mailer.send({ ...message, to: [`reader${i}@example.com`] }).catch((err: unknown) => err)),
    );

    const failed = outcomes.filter((outcome) => outcome instanceof TransientMailError);
    const sent = outcomes.filter((outcome): outcome is { messageId: string } => !(outcome instanceof Error));
    expect(failed).toHaveLength(5);
    expect(sent).toHaveLength(35);
    expect(new Set(sent.map((outcome) => outcome.messageId)).size).toBe(35);
    expect(ses.emails.map((email) => email.messageId).sort()).toEqual(sent.map((outcome) => outcome.messageId).sort());
    expect(new Set(ses.emails.map((email) => email.request.Destination?.ToAddresses?.[0])).size).toBe(35);
    expect(ses.requests).toHaveLength(40);
    for (const email of ses.emails) expect(email.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=\S+\/eu-west-1\/ses\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/);
  });

  it('maps an unreachable endpoint to a TransientMailError', async () => {
    const closed = new SesMailer({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${await freePort()}`,
      credentials,
    });

    await expect(closed.send(message)).rejects.toBeInstanceOf(TransientMailError);
    await closed.close();
  });
});

describe('SES test server identity operations, through the real SDK', () => {
  let ses: SesServer;
  let client: SESv2Client;

  beforeAll(async () => {
    ses = await SesServer.start();
    client = new SESv2Client({ region: 'eu-west-1', endpoint: ses.endpoint, credentials, maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await ses.close();
  });

  it('creates a domain identity with three DKIM tokens, describes it, verifies it and deletes it', async () => {
    const created = await client.send(new CreateEmailIdentityCommand({ EmailIdentity: 'mail.example.com' }));
    expect(created.IdentityType).toBe('DOMAIN');
    expect(created.VerifiedForSendingStatus).toBe(false);
    expect(created.DkimAttributes?.Tokens).toHaveLength(3);

    ses.verifyIdentity('mail.example.com');
    const described = await client.send(new GetEmailIdentityCommand({ EmailIdentity: 'mail.example.com' }));
    expect(described.VerifiedForSendingStatus).toBe(true);
    expect(described.DkimAttributes).toMatchObject({ Status: 'SUCCESS', Tokens: created.DkimAttributes?.Tokens });

    await client.send(new DeleteEmailIdentityCommand({ EmailIdentity: 'mail.example.com' }));
    await expect(
      client.send(new GetEmailIdentityCommand({ EmailIdentity: 'mail.example.com' })),
    ).rejects.toBeInstanceOf(NotFoundException);
  });

  it('refuses a second identity of the same name and reads the account quota', async () => {
    await client.send(new CreateEmailIdentityCommand({ EmailIdentity: 'ops@example.com' }));

    await expect(
      client.send(new CreateEmailIdentityCommand({ EmailIdentity: 'ops@example.com' })),
    ).rejects.toBeInstanceOf(AlreadyExistsException);
    expect(ses.identities.get('ops@example.com')?.type).toBe('EMAIL_ADDRESS');
    const account = await client.send(new GetAccountCommand({}));
    expect(account.SendQuota?.MaxSendRate).toBe(14);
  });
});
