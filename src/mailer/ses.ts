import {
  type EmailContent,
  SendEmailCommand,
  type SendEmailCommandInput,
  SESv2Client,
  type SESv2ClientConfig,
} from '@aws-sdk/client-sesv2';
import http from 'node:http';
import https from 'node:https';
import { buildRawMessage, envelopeRecipients } from './mime';
import {
  type MailError,
  type Mailer,
  type OutgoingMessage,
  PermanentMailError,
  type SentMessage,
  TransientMailError,
} from './types';

/** Where and as whom an SES v2 client connects. */
export interface SesClientOptions {
  region: string;
  /** Another endpoint than AWS's, e.g. a local SES-compatible server. */
  endpoint?: string;
  /** Explicit credentials; without them the SDK's default chain (the `AWS_*` variables, profiles, roles) is used. */
  credentials?: SESv2ClientConfig['credentials'];
}

export interface SesMailerOptions extends SesClientOptions {
  configurationSet?: string;
}

/** Connections to SES one client keeps open at most. */
const MAX_SOCKETS = 256;

/**
 * An SES v2 client that makes one attempt per call: Temporal retries activities, and API
 * callers retry their request, so SDK retries would only multiply them. Its middleware stack
 * (serializing, endpoint, signing, the attempt, parsing and classifying SES's answer) is put
 * together once per command class instead of once per call (`cacheMiddleware`: nothing changes
 * the stack after the client is made), and without the SDK's logging step: the client has no
 * logger, and that step filtered every call's input and output for the log it did not write.
 */
export function createSesClient(options: SesClientOptions): SESv2Client {
  const client = new SESv2Client({
    region: options.region,
    endpoint: options.endpoint,
    credentials: options.credentials,
    maxAttempts: 1,
    cacheMiddleware: true,
    requestHandler: {
      connectionTimeout: 10_000,
      requestTimeout: 60_000,
      // Kept-alive connections, enough for a campaign batch's concurrent sends without queueing.
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
      httpsAgent: new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
    },
  });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/** Delivers through Amazon SES v2 `SendEmail`. */
export class SesMailer implements Mailer {
  readonly transport = 'ses' as const;
  private readonly client: SESv2Client;

  constructor(private readonly options: SesMailerOptions) {
    this.client = createSesClient(options);
  }

  /** Sends the message and returns SES's MessageId; throws PermanentMailError or TransientMailError. */
  async send(message: OutgoingMessage): Promise<SentMessage> {
    const command = new SendEmailCommand(await this.toRequest(message));
    const output = await this.client.send(command).catch((err: unknown) => {
      throw toMailError(err);
    });
    // Never seen in practice; not retried, since SES did take the message.
    if (!output.MessageId) throw new PermanentMailError('SES accepted the message but answered no MessageId');
    return { messageId: output.MessageId };
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private async toRequest(message: OutgoingMessage): Promise<SendEmailCommandInput> {
    const tags = Object.entries(message.tags ?? {}).map(([Name, Value]) => ({ Name, Value }));
    const common = {
      ConfigurationSetName: message.configurationSet ?? this.options.configurationSet,
      EmailTags: tags.length > 0 ? tags : undefined,
    };
    if (needsRaw(message)) {
      // The raw message carries the sender in its headers, encoded by the composer; the
      // recipients are named explicitly, so that no header of the message can add one.
      return {
        ...common,
        Destination: { ToAddresses: envelopeRecipients(message) },
        Content: { Raw: { Data: await buildRawMessage(message) } },
      };
    }
    return {
      ...common,
      FromEmailAddress: message.from,
      Destination: { ToAddresses: message.to },
      ReplyToAddresses: message.replyTo ? [message.replyTo] : undefined,
      Content: simpleContent(message),
    };
  }
}

function simpleContent(message: OutgoingMessage): EmailContent {
  const headers = Object.entries(message.headers ?? {}).map(([Name, Value]) => ({ Name, Value }));
  return {
    Simple: {
      Subject: { Data: message.subject, Charset: 'UTF-8' },
      Body: {
        Html: { Data: message.html, Charset: 'UTF-8' },
        Text: { Data: message.text, Charset: 'UTF-8' },
      },
      Headers: headers.length > 0 ? headers : undefined,
    },
  };
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,126}$/;

/**
 * Simple content takes plain ASCII addresses and headers within SES's limits (name of printable
 * ASCII without a colon, up to 126 characters; value of printable ASCII, up to 995, together up
 * to 996). Attachments, non-ASCII addresses and other headers go as a MIME message.
 */
function needsRaw(message: OutgoingMessage): boolean {
  if ((message.attachments?.length ?? 0) > 0) return true;
  const addresses = [message.from, ...message.to, ...(message.replyTo ? [message.replyTo] : [])];
  if (!addresses.every((address) => PRINTABLE_ASCII.test(address))) return true;
  return !Object.entries(message.headers ?? {}).every(
    ([name, value]) =>
      HEADER_NAME.test(name) && PRINTABLE_ASCII.test(value) && value.length <= 995 && name.length + value.length <= 996,
  );
}

interface AwsError {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

/** Errors about this message (its content, sender, or the account's standing) that a retry would meet again. */
const PERMANENT = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'NotFoundException',
  'AccountSuspendedException',
]);

/** Errors that pass: throttling, quotas that reset, paused sending that is resumed, SES-side faults. */
const TRANSIENT = new Set([
  'TooManyRequestsException',
  'LimitExceededException',
  'SendingPausedException',
  'InternalServiceErrorException',
]);

/**
 * Named SES errors decide by name. Otherwise 429, 5xx, credential or permission refusals (401,
 * 403: the operator's to fix, not the message's) and failures with no HTTP answer at all
 * (network, timeouts) are transient; any other 4xx is a request SES will never take: permanent.
 */
function toMailError(err: unknown): MailError {
  const aws = err as AwsError;
  const name = aws.name ?? 'Error';
  const status = aws.$metadata?.httpStatusCode;
  const options = { code: name, cause: err };
  const message = `SES delivery failed: ${name}${aws.message ? `: ${aws.message}` : ''}`;
  let permanent: boolean;
  if (PERMANENT.has(name)) permanent = true;
  else if (TRANSIENT.has(name)) permanent = false;
  else permanent = status !== undefined && status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
  return permanent ? new PermanentMailError(message, options) : new TransientMailError(message, options);
}
