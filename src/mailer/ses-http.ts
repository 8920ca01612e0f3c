import type { SendEmailCommandInput, SESv2Client } from '@aws-sdk/client-sesv2';
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/**
 * SES v2 `SendEmail` as one signed HTTP request on a kept-alive connection. The SDK's
 * command pipeline (endpoint rules, retry and logging middleware, schema serialization) costs
 * several times the request itself at thousands of sends a second; this path keeps what SES
 * asks for: the JSON body, a Signature Version 4 signature (service `ses`), and SES's error
 * names. Credentials and the endpoint still come from the SDK client's own configuration,
 * so the default credential chain, role refreshes and custom endpoints work as before.
 */

/** The requests on one connection pool at once; more wait for a free connection. */
const MAX_SOCKETS = 256;
const PATH = '/v2/email/outbound-emails';
const SERVICE = 'ses';

/** An SES or transport failure, shaped as the SDK's errors are (name, message, `$metadata.httpStatusCode`). */
export class SesRequestError extends Error {
  readonly $metadata: { httpStatusCode?: number };

  constructor(name: string, message: string, httpStatusCode?: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode };
  }
}

/** A `SendEmail` request body as SES reads it: the SDK's input with a raw message's bytes in base64. */
export type SendEmailRequest = Omit<SendEmailCommandInput, 'Content'> & {
  Content: Omit<NonNullable<SendEmailCommandInput['Content']>, 'Raw'> & { Raw?: { Data: string } };
};

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** The SES error name of a failed answer: `x-amzn-ErrorType` (up to its `:`), else the body's `__type` or `code`. */
function errorName(header: string | string[] | undefined, body: Record<string, unknown>): string {
  const raw = (Array.isArray(header) ? header[0] : header) ?? String(body.__type ?? body.code ?? body.Code ?? '');
  const name = raw.split(':')[0].split('#').pop() ?? '';
  return name || 'UnknownError';
}

/** Sends `SendEmail` requests for one SES client's region, endpoint and credentials. */
export class SesSendEmail {
  private readonly agent: http.Agent;
  private readonly url: Promise<URL>;
  /** The derived signing key of the current day and secret. */
  private signingKey: { scope: string; secret: string; key: Buffer } | undefined;

  constructor(
    private readonly client: SESv2Client,
    private readonly region: string,
    endpoint: string | undefined,
    private readonly timeouts: { connectionTimeout: number; requestTimeout: number },
  ) {
    this.url = this.resolveUrl(endpoint);
    const https_ = endpoint ? new URL(endpoint).protocol === 'https:' : true;
    this.agent = https_ ? new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS }) : new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  }

  /** Sends the request (`Content.Raw.Data` base64, as on the wire); answers SES's output or throws a SesRequestError. */
  async send(input: SendEmailRequest): Promise<{ MessageId?: string }> {
    const body = JSON.stringify(input);
    const url = await this.url;
    const path = url.pathname.replace(/\/$/, '') + PATH;
    const headers = await this.signedHeaders(url.host, path, body);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = transport.request(
        { protocol: url.protocol, hostname: url.hostname, port: url.port, method: 'POST', path, headers, agent: this.agent, timeout: this.timeouts.requestTimeout },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (err) => reject(new SesRequestError(err.name, err.message)));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            let parsed: Record<string, unknown> = {};
            try {
              parsed = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
            } catch {
              // A body that is not JSON carries no error name or MessageId.
            }
            if (status >= 200 && status < 300) resolve(parsed as { MessageId?: string });
            else reject(new SesRequestError(errorName(response.headers['x-amzn-errortype'], parsed), String(parsed.message ?? parsed.Message ?? ''), status));
          });
        },
      );
      const connectTimer = setTimeout(() => request.destroy(new SesRequestError('TimeoutError', `Connection timed out after ${this.timeouts.connectionTimeout} ms`)), this.timeouts.connectionTimeout);
      request.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
      });
      request.once('timeout', () => request.destroy(new SesRequestError('TimeoutError', `No answer within ${this.timeouts.requestTimeout} ms`)));
      request.once('error', (err) => {
        clearTimeout(connectTimer);
        reject(err instanceof SesRequestError ? err : new SesRequestError(err.name, err.message));
      });
      request.once('close', () => clearTimeout(connectTimer));
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }

  /** The configured endpoint, else the one the SDK's endpoint rules give the region. */
  private async resolveUrl(endpoint: string | undefined): Promise<URL> {
    if (endpoint) return new URL(endpoint);
    const resolved = this.client.config.endpointProvider({ Region: this.region, UseFIPS: false, UseDualStack: false });
    return new URL(resolved.url.href);
  }

  /** The headers of a request signed with Signature Version 4, with the SDK client's current credentials. */
  private async signedHeaders(host: string, path: string, body: string): Promise<Record<string, string>> {
    const credentials = (await this.client.config.credentials()) as Credentials;
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const day = amzDate.slice(0, 8);
    const scope = `${day}/${this.region}/${SERVICE}/aws4_request`;
    const headers: Record<string, string> = { 'content-type': 'application/json', host, 'x-amz-date': amzDate };
    if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
    const names = Object.keys(headers).sort();
    const signedNames = names.join(';');
    const canonical = ['POST', path, '', ...names.map((name) => `${name}:${headers[name]}`), '', signedNames, sha256(body)].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
    const signature = createHmac('sha256', this.key(scope, day, credentials.secretAccessKey)).update(toSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedNames}, Signature=${signature}`;
    headers['content-length'] = String(Buffer.byteLength(body));
    return headers;
  }

  private key(scope: string, day: string, secret: string): Buffer {
    if (this.signingKey?.scope === scope && this.signingKey.secret === secret) return this.signingKey.key;
    const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), this.region), SERVICE), 'aws4_request');
    this.signingKey = { scope, secret, key };
    return key;
  }
}
