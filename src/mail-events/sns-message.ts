import { badRequest } from '../http/errors';

/** The SNS message types the webhook understands. */
export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

const TYPES: readonly SnsMessageType[] = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];

/** An Amazon SNS HTTP(S) message, as its JSON envelope names the fields. */
export interface SnsMessage {
  Type: SnsMessageType;
  MessageId: string;
  Message: string;
  TopicArn?: string;
  Subject?: string;
  Timestamp?: string;
  SubscribeURL?: string;
  Token?: string;
  SignatureVersion?: string;
  Signature?: string;
  SigningCertURL?: string;
}

const OPTIONAL_FIELDS = ['TopicArn', 'Subject', 'Timestamp', 'SubscribeURL', 'Token', 'SignatureVersion', 'Signature', 'SigningCertURL'] as const;

/**
 * The hosts Amazon SNS serves from, exactly: `sns.<region>.amazonaws.com`, and
 * `sns.cn-<area>-<n>.amazonaws.com.cn` in China. A region is `<two letters>[-gov]-<area>-<n>`
 * (`eu-west-1`, `us-gov-west-1`): no other label may stand there, so an S3 bucket host such as
 * `sns.s3.amazonaws.com` or `sns.s3-website-us-east-1.amazonaws.com` is refused.
 */
const SNS_HOST = /^sns\.(?:[a-z]{2}(?:-gov)?-[a-z]+-\d{1,2}\.amazonaws\.com|cn-[a-z]+-\d{1,2}\.amazonaws\.com\.cn)$/;

/** Whether a URL is an https URL on an Amazon SNS host, the only kind Herald ever fetches for SNS. */
export function isSnsUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.port === '' && url.username === '' && url.password === '' && SNS_HOST.test(url.hostname);
}

/** Reads an SNS envelope from a request body (a JSON object, or the JSON text SNS posts as text/plain); 400 otherwise. */
export function parseSnsMessage(body: unknown): SnsMessage {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      throw badRequest('The body is not a JSON document');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('The body is not an SNS message');
  const input = value as Record<string, unknown>;
  if (!TYPES.includes(input.Type as SnsMessageType)) throw badRequest(`Unsupported SNS message type: ${String(input.Type)}`);
  if (typeof input.MessageId !== 'string' || input.MessageId === '') throw badRequest('The SNS message has no MessageId');
  if (typeof input.Message !== 'string') throw badRequest('The SNS message has no Message');
  const message: SnsMessage = { Type: input.Type as SnsMessageType, MessageId: input.MessageId, Message: input.Message };
  for (const field of OPTIONAL_FIELDS) {
    const given = input[field];
    if (given === undefined || given === null) continue;
    if (typeof given !== 'string') throw badRequest(`The SNS field ${field} must be a string`);
    message[field] = given;
  }
  if (message.Type === 'SubscriptionConfirmation' && !message.SubscribeURL) throw badRequest('The confirmation has no SubscribeURL');
  return message;
}
