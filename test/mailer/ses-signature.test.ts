import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac } from 'node:crypto';
import { SesMailer } from '../../src/mailer/ses';
import { SesServer } from '../support/ses-server';

/** SHA-256 for the SDK's signer, from node:crypto. */
class NodeSha256 {
  private readonly hash;

  constructor(secret?: unknown) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret as string | Uint8Array);
  }

  update(data: string | Uint8Array): void {
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

/** The ISO form of an `x-amz-date` value (`20260102T030405Z`). */
const fromAmzDate = (value: string) =>
  new Date(`${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T${value.slice(9, 11)}:${value.slice(11, 13)}:${value.slice(13, 15)}Z`);

describe('SesMailer request signing', () => {
  let ses: SesServer;

  beforeAll(async () => {
    ses = await SesServer.start();
  });
  afterAll(() => ses.close());

  it.each<[string, { accessKeyId: string; secretAccessKey: string; sessionToken?: string }]>([
    ['long-term credentials', { accessKeyId: 'AKIDTESTHERALD', secretAccessKey: 'test-secret' }],
    ['temporary credentials', { accessKeyId: 'ASIATESTHERALD', secretAccessKey: 'temp-secret', sessionToken: 'session/token+1=' }],
  ])('signs SendEmail with %s exactly as the SDK signer would (service ses)', async (_, credentials) => {
    const mailer = new SesMailer({ region: 'eu-west-1', endpoint: ses.endpoint, credentials });
    try {
      await mailer.send({ from: 'news@herald.test', to: ['Zoë <zoe@example.com>'], subject: 'Grüße', html: '<p>Hi</p>', text: 'Hi', tags: { emailId: 'e1' } });
    } finally {
      await mailer.close();
    }
    const { headers, request } = ses.emails.at(-1)!;
    const url = new URL(ses.endpoint);
    const signed = await new SignatureV4({ credentials, region: 'eu-west-1', service: 'ses', sha256: NodeSha256, applyChecksum: false }).sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: '/v2/email/outbound-emails',
        query: {},
        headers: {
          'content-type': String(headers['content-type']),
          host: String(headers.host),
          ...(credentials.sessionToken ? { 'x-amz-security-token': String(headers['x-amz-security-token']) } : {}),
        },
        body: JSON.stringify(request),
      },
      { signingDate: fromAmzDate(String(headers['x-amz-date'])) },
    );
    expect(headers.authorization).toBe(signed.headers.authorization);
    expect(headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(request))));
  });
});
