import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeServer, listenLoopback, readBody } from './http-double';

/**
 * A local stand-in for Amazon SES v2 that speaks its REST/JSON wire protocol, so the real
 * `@aws-sdk/client-sesv2` can be pointed at it (endpoint + any credentials). It records
 * every request, answers like SES, and fails on demand the way SES does (status code,
 * `x-amzn-ErrorType` header, `{ message }` body).
 *
 * Operations: SendEmail, GetAccount, CreateEmailIdentity, GetEmailIdentity,
 * DeleteEmailIdentity. More are added with `route()`.
 */

/** One SendEmail call as SES received it. */
export interface CapturedEmail {
  messageId: string;
  /** The JSON request body exactly as the SDK sent it (`Content.Raw.Data` still base64). */
  request: SendEmailBody;
  /** `Content.Raw.Data` decoded, when the raw path was used. */
  raw: Buffer | undefined;
  headers: IncomingHttpHeaders;
}

export interface SendEmailBody {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  ReplyToAddresses?: string[];
  Content: {
    Simple?: {
      Subject: { Data: string; Charset?: string };
      Body: { Text?: { Data: string; Charset?: string }; Html?: { Data: string; Charset?: string } };
      Headers?: { Name: string; Value: string }[];
    };
    Raw?: { Data: string };
  };
  EmailTags?: { Name: string; Value: string }[];
  ConfigurationSetName?: string;
}

/** An identity as this server keeps it. */
export interface Identity {
  name: string;
  type: 'DOMAIN' | 'EMAIL_ADDRESS';
  verified: boolean;
  dkimTokens: string[];
  createdWith: Record<string, unknown>;
}

/** What a route handler receives. */
export interface SesRequest {
  method: string;
  path: string;
  params: string[];
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface SesResponse {
  status?: number;
  body: unknown;
}

/** Thrown by a handler to answer with an SES error. */
export class SesFault extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

type Handler = (request: SesRequest) => SesResponse | Promise<SesResponse>;

interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

interface Fault {
  status: number;
  errorType: string;
  message: string;
}

const DEFAULT_MESSAGES: Record<string, string> = {
  TooManyRequestsException: 'Too many requests.',
  MessageRejected: 'Email address is not verified.',
  InternalFailure: 'An internal error occurred.',
};

/** The value of one of Herald's `EmailTags` on a message SES received. */
export function emailTag(email: CapturedEmail, name: string): string | undefined {
  return email.request.EmailTags?.find((t) => t.Name === name)?.Value;
}

export class SesServer {
  /** Every SendEmail call, in order. */
  readonly emails: CapturedEmail[] = [];
  /** Every request that reached a route or a fault, in order (method and path). */
  readonly requests: { method: string; path: string }[] = [];
  readonly identities = new Map<string, Identity>();
  /** How long each request waits, once received, before it is handled and answered, as over a network (0: not at all). */
  latencyMs = 0;
  /** Runs when a message is accepted (it has its MessageId), before SendEmail is answered: what SES does meanwhile. */
  onAccept: ((email: CapturedEmail) => Promise<void>) | undefined;
  private readonly routes: Route[] = [];
  private readonly faults: Fault[] = [];
  private unanswered = 0;

  private constructor(
    private readonly server: Server,
    /** The endpoint to hand the SDK, e.g. `http://127.0.0.1:41234`. */
    readonly endpoint: string,
  ) {
    this.route('POST', /^\/v2\/email\/outbound-emails$/, (req) => this.sendEmail(req));
    this.route('GET', /^\/v2\/email\/account$/, () => ({ body: this.account() }));
    this.route('POST', /^\/v2\/email\/identities$/, (req) => this.createIdentity(req));
    this.route('GET', /^\/v2\/email\/identities\/([^/]+)$/, (req) => ({ body: this.describe(this.identity(req)) }));
    this.route('DELETE', /^\/v2\/email\/identities\/([^/]+)$/, (req) => {
      this.identities.delete(this.identity(req).name);
      return { body: {} };
    });
  }

  /** Starts the server on a loopback port (`0`: any free one). */
  static async start(port = 0): Promise<SesServer> {
    let instance: SesServer | undefined;
    const { server, url } = await listenLoopback((req, res) => instance!.handle(req, res), port);
    instance = new SesServer(server, url);
    return instance;
  }

  /** Adds (or, registered later, overrides) an operation: `pattern` groups become `params`, URL-decoded. */
  route(method: string, pattern: RegExp, handler: Handler): void {
    this.routes.unshift({ method, pattern, handler });
  }

  /** The next `count` requests fail with this status and SES error type, as AWS answers them. */
  failNext(count: number, status: number, errorType: string, message = DEFAULT_MESSAGES[errorType] ?? errorType): void {
    for (let i = 0; i < count; i++) this.faults.push({ status, errorType, message });
  }

  /** Marks an identity verified for sending (DKIM SUCCESS), as when its DNS records are found. */
  verifyIdentity(name: string): void {
    const identity = this.identities.get(name);
    if (!identity) throw new Error(`No identity ${name}`);
    identity.verified = true;
  }

  /** Requests received whose answers have not been sent yet. */
  get inFlight(): number {
    return this.unanswered;
  }

  /** Forgets recorded requests, identities, pending faults and the accept hook. */
  reset(): void {
    this.emails.length = 0;
    this.requests.length = 0;
    this.faults.length = 0;
    this.identities.clear();
    this.onAccept = undefined;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = new URL(req.url ?? '/', this.endpoint).pathname;
    const method = req.method ?? 'GET';
    this.requests.push({ method, path });
    this.unanswered += 1;
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      const fault = this.faults.shift();
      if (fault) throw new SesFault(fault.status, fault.errorType, fault.message);
      for (const route of this.routes) {
        const match = route.method === method ? route.pattern.exec(path) : null;
        if (!match) continue;
        let body: Record<string, unknown> = {};
        try {
          body = text ? JSON.parse(text) : {};
        } catch {
          throw new SesFault(400, 'SerializationException', 'Request body is not JSON');
        }
        const params = match.slice(1).map((p) => decodeURIComponent(p));
        const result = await route.handler({ method, path, params, headers: req.headers, body });
        return respond(res, result.status ?? 200, result.body);
      }
      throw new SesFault(404, 'UnknownOperationException', `No operation for ${method} ${path}`);
    } catch (err) {
      const fault = err instanceof SesFault ? err : new SesFault(500, 'InternalFailure', String(err));
      respond(res, fault.status, { message: fault.message }, {
        'x-amzn-ErrorType': `${fault.errorType}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`,
      });
    } finally {
      this.unanswered -= 1;
    }
  }

  private async sendEmail(req: SesRequest): Promise<SesResponse> {
    const request = req.body as unknown as SendEmailBody;
    const content = request.Content ?? {};
    if (!content.Simple && !content.Raw) throw new SesFault(400, 'BadRequestException', 'Content is required');
    const messageId = `0100${randomBytes(6).toString('hex')}-${randomUUID()}-000000`;
    const raw = content.Raw ? Buffer.from(content.Raw.Data, 'base64') : undefined;
    const email = { messageId, request, raw, headers: req.headers };
    this.emails.push(email);
    await this.onAccept?.(email);
    return { body: { MessageId: messageId } };
  }

  private account() {
    return {
      DedicatedIpAutoWarmupEnabled: false,
      EnforcementStatus: 'HEALTHY',
      ProductionAccessEnabled: true,
      SendingEnabled: true,
      SendQuota: { Max24HourSend: 50000, MaxSendRate: 14, SentLast24Hours: this.emails.length },
    };
  }

  private createIdentity(req: SesRequest): SesResponse {
    const name = req.body.EmailIdentity;
    if (typeof name !== 'string' || name === '') throw new SesFault(400, 'BadRequestException', 'EmailIdentity is required');
    if (this.identities.has(name)) throw new SesFault(400, 'AlreadyExistsException', `Email identity ${name} already exist.`);
    const identity: Identity = {
      name,
      type: name.includes('@') ? 'EMAIL_ADDRESS' : 'DOMAIN',
      verified: false,
      dkimTokens: [0, 1, 2].map(() => randomBytes(16).toString('hex')),
      createdWith: req.body,
    };
    this.identities.set(name, identity);
    return {
      body: {
        IdentityType: identity.type,
        VerifiedForSendingStatus: false,
        DkimAttributes: this.dkim(identity),
      },
    };
  }

  private identity(req: SesRequest): Identity {
    const identity = this.identities.get(req.params[0]);
    if (!identity) throw new SesFault(404, 'NotFoundException', `Email identity ${req.params[0]} does not exist.`);
    return identity;
  }

  private describe(identity: Identity) {
    return {
      IdentityType: identity.type,
      FeedbackForwardingStatus: true,
      VerifiedForSendingStatus: identity.verified,
      VerificationStatus: identity.verified ? 'SUCCESS' : 'PENDING',
      DkimAttributes: this.dkim(identity),
      MailFromAttributes: { BehaviorOnMxFailure: 'USE_DEFAULT_VALUE', MailFromDomainStatus: 'PENDING' },
      Policies: {},
      Tags: identity.createdWith.Tags ?? [],
    };
  }

  private dkim(identity: Identity) {
    return {
      SigningEnabled: true,
      Status: identity.verified ? 'SUCCESS' : 'PENDING',
      Tokens: identity.dkimTokens,
      SigningAttributesOrigin: 'AWS_SES',
      CurrentSigningKeyLength: 'RSA_2048_BIT',
      NextSigningKeyLength: 'RSA_2048_BIT',
    };
  }
}

function respond(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-RequestId': randomUUID(),
    ...headers,
  });
  res.end(payload);
}
