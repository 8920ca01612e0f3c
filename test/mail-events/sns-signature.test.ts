import { createSign, generateKeyPairSync } from 'node:crypto';
import { isSnsUrl, type SnsMessage } from '../../src/mail-events/sns-message';
import { SnsSignatureVerifier, stringToSign } from '../../src/mail-events/sns-signature';

const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';

const notification: SnsMessage = {
  Type: 'Notification',
  MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
  TopicArn: 'arn:aws:sns:us-east-1:123456789012:herald',
  Subject: 'Amazon SES Email Event Notification',
  Message: '{"eventType":"Delivery"}',
  Timestamp: '2025-01-01T12:00:00.000Z',
  SignatureVersion: '1',
  SigningCertURL: CERT_URL,
};

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

function signed(message: SnsMessage, version: '1' | '2' = '1'): SnsMessage {
  const withVersion = { ...message, SignatureVersion: version };
  const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(stringToSign(withVersion)).sign(privateKey, 'base64');
  return { ...withVersion, Signature: signature };
}

describe('stringToSign', () => {
  it('lists a notification\'s signed fields in SNS order, each as name and value lines', () => {
    expect(stringToSign(notification)).toBe(
      'Message\n{"eventType":"Delivery"}\n' +
        'MessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\n' +
        'Subject\nAmazon SES Email Event Notification\n' +
        'Timestamp\n2025-01-01T12:00:00.000Z\n' +
        'TopicArn\narn:aws:sns:us-east-1:123456789012:herald\n' +
        'Type\nNotification\n',
    );
  });

  it('leaves out a missing Subject', () => {
    const { Subject: _subject, ...withoutSubject } = notification;
    expect(stringToSign(withoutSubject)).not.toContain('Subject');
  });

  it('signs SubscribeURL and Token of a subscription confirmation', () => {
    const confirmation: SnsMessage = {
      Type: 'SubscriptionConfirmation',
      MessageId: 'm-1',
      Message: 'You have chosen to subscribe',
      SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription',
      Timestamp: '2025-01-01T12:00:00.000Z',
      Token: 'tok',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:herald',
    };
    expect(stringToSign(confirmation)).toBe(
      'Message\nYou have chosen to subscribe\nMessageId\nm-1\n' +
        'SubscribeURL\nhttps://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription\n' +
        'Timestamp\n2025-01-01T12:00:00.000Z\nToken\ntok\n' +
        'TopicArn\narn:aws:sns:us-east-1:123456789012:herald\nType\nSubscriptionConfirmation\n',
    );
  });
});

describe('SnsSignatureVerifier', () => {
  it('accepts SignatureVersion 1 and 2 signatures made with the certificate key, fetching the certificate once', async () => {
    const source = jest.fn(async () => publicPem);
    const verifier = new SnsSignatureVerifier(source);
    await expect(verifier.verify(signed(notification, '1'))).resolves.toBe(true);
    await expect(verifier.verify(signed(notification, '2'))).resolves.toBe(true);
    expect(source).toHaveBeenCalledTimes(1);
    expect(source).toHaveBeenCalledWith(CERT_URL);
  });

  it('refuses a message changed after signing', async () => {
    const verifier = new SnsSignatureVerifier(async () => publicPem);
    await expect(verifier.verify({ ...signed(notification), Message: '{"eventType":"Complaint"}' })).resolves.toBe(false);
  });

  it('refuses certificates from anywhere but an https SNS host, without fetching them', async () => {
    const source = jest.fn(async () => publicPem);
    const verifier = new SnsSignatureVerifier(source);
    for (const url of ['https://sns.evil.example.com/cert.pem', 'http://sns.us-east-1.amazonaws.com/cert.pem', 'https://sns.us-east-1.amazonaws.com.evil.example/cert.pem', 'https://sns.us-east-1.amazonaws.com/cert.txt']) {
      await expect(verifier.verify({ ...signed(notification), SigningCertURL: url })).resolves.toBe(false);
    }
    await expect(verifier.verify({ ...signed(notification), SignatureVersion: '3' })).resolves.toBe(false);
    expect(source).not.toHaveBeenCalled();
  });
});

describe('isSnsUrl', () => {
  it('accepts only https URLs on sns.<region>.amazonaws.com', () => {
    expect(isSnsUrl('https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=x')).toBe(true);
    expect(isSnsUrl('https://sns.cn-north-1.amazonaws.com.cn/')).toBe(true);
    expect(isSnsUrl('http://sns.eu-west-1.amazonaws.com/')).toBe(false);
    expect(isSnsUrl('https://sns.eu-west-1.amazonaws.com:8443/')).toBe(false);
    expect(isSnsUrl('https://user@sns.eu-west-1.amazonaws.com/')).toBe(false);
    expect(isSnsUrl('https://example.com/sns.eu-west-1.amazonaws.com')).toBe(false);
    expect(isSnsUrl('not a url')).toBe(false);
  });

  it.each([
    'sns.us-east-1.amazonaws.com',
    'sns.eu-central-2.amazonaws.com',
    'sns.ap-southeast-4.amazonaws.com',
    'sns.us-gov-west-1.amazonaws.com',
    'sns.il-central-1.amazonaws.com',
    'sns.cn-northwest-1.amazonaws.com.cn',
  ])('accepts the SNS host %s', (host) => {
    expect(isSnsUrl(`https://${host}/SimpleNotificationService-0000.pem`)).toBe(true);
  });

  it.each([
    ['an S3 bucket named sns on the global endpoint', 'sns.s3.amazonaws.com'],
    ['an S3 bucket named sns on a legacy regional endpoint', 'sns.s3-us-west-2.amazonaws.com'],
    ['an S3 bucket named sns on the external endpoint', 'sns.s3-external-1.amazonaws.com'],
    ['an S3 website bucket named sns', 'sns.s3-website-us-east-1.amazonaws.com'],
    ['an S3 bucket with a dotted name', 'sns.evil.s3.amazonaws.com'],
    ['an S3 dualstack bucket host', 'sns.s3.dualstack.us-east-1.amazonaws.com'],
    ['an EC2 public host', 'sns.compute-1.amazonaws.com'],
    ['a region that is not one', 'sns.attacker.amazonaws.com'],
    ['.com.cn outside China', 'sns.us-east-1.amazonaws.com.cn'],
    ['a host under an SNS host', 'evil.sns.us-east-1.amazonaws.com'],
    ['a host that only starts like one', 'sns.us-east-1.amazonaws.com.evil.example'],
    ['a trailing dot', 'sns.us-east-1.amazonaws.com.'],
  ])('refuses %s (%s)', (_what, host) => {
    expect(isSnsUrl(`https://${host}/SimpleNotificationService-0000.pem`)).toBe(false);
  });
});
