import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../verify/private-addresses';
import { PermanentStepError } from './errors';

/** One outgoing webhook call. */
export interface WebhookRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface WebhookOptions {
  /** WEBHOOK_ALLOW_PRIVATE: allow loopback, private and other non-public addresses. */
  allowPrivate: boolean;
  /** The whole call, from DNS to the last byte of the answer. */
  timeoutMs: number;
}

/** How the receiver answered a call that succeeded (2xx). */
export interface WebhookResponse {
  status: number;
}

/** Bytes of an answer kept for the error message of a failed call. */
const ANSWER_SNIPPET = 500;

/** A call that failed in a way a later attempt may not (timeout, network, 5xx, 408, 429). */
export class WebhookRetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRetryableError';
  }
}

/**
 * Resolves a host with dns.lookup and refuses it unless every address is public, then
 * connects to the checked address: a name cannot resolve to a public address for the check
 * and a private one for the connection.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused || addresses.length === 0) {
      return callback(new PermanentStepError(`Webhook host ${hostname} resolves to a non-public address (${refused?.address ?? 'none'}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`), '', 0);
    }
    if (options.all) return (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/** The URL of a call, refused unless http(s), and refused for a non-public IP literal unless allowed. */
function targetOf(request: WebhookRequest, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new PermanentStepError(`Webhook URL is not valid: ${request.url}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PermanentStepError(`Webhook URL must be http or https: ${request.url}`);
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && isIP(literal) && !isPublicAddress(literal)) {
    throw new PermanentStepError(`Webhook address ${literal} is not public; set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
  }
  return url;
}

/** How long `refusedTarget` waits for a name to resolve before it lets the URL pass. */
const TARGET_LOOKUP_MS = 5000;

/**
 * Why calls to a URL would be refused now (not http or https, or a non-public address, a name
 * resolved now with the lookup calls use); undefined when they would not. A name that does not
 * resolve (in time) passes: every call checks again.
 */
export async function refusedTarget(rawUrl: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL;
  try {
    url = targetOf({ url: rawUrl, method: 'POST', headers: {}, body: undefined }, allowPrivate);
  } catch (err) {
    return (err as Error).message;
  }
  if (allowPrivate || isIP(url.hostname.replace(/^\[(.*)\]$/, '$1'))) return undefined;
  const lookup = new Promise<string | undefined>((resolve) => {
    publicOnlyLookup(url.hostname, { all: true }, (err) => resolve(err instanceof PermanentStepError ? err.message : undefined));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), TARGET_LOOKUP_MS)));
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
}

/** Whether a failed answer's status is worth another attempt: 5xx, 408 and 429. */
function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * Makes one webhook call within the timeout, without following redirects. A 2xx answer
 * succeeds; a refused target, a bad URL, and 3xx/4xx answers (but 408 and 429) throw
 * PermanentStepError; timeouts, network errors and the other answers throw for a retry.
 */
export async function sendWebhook(request: WebhookRequest, options: WebhookOptions): Promise<WebhookResponse> {
  const url = targetOf(request, options.allowPrivate);
  const transport = url.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(options.timeoutMs);
  const answer = await new Promise<{ status: number; snippet: string }>((resolve, reject) => {
    const call = transport.request(url, {
      method: request.method,
      headers: request.headers,
      signal,
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    call.on('error', reject);
    call.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < ANSWER_SNIPPET) chunks.push(chunk);
        kept += chunk.length;
      });
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, snippet: Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_SNIPPET) }));
    });
    call.end(request.body);
  }).catch((err: unknown) => {
    if (err instanceof PermanentStepError) throw err;
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_INVALID')) throw new PermanentStepError(`Webhook request is not valid: ${(err as Error).message}`);
    if (signal.aborted) throw new WebhookRetryableError(`Webhook ${request.method} ${url.origin} timed out after ${options.timeoutMs / 1000} s`);
    throw new WebhookRetryableError(`Webhook ${request.method} ${url.origin} failed: ${(err as Error).message}`);
  });
  if (answer.status >= 200 && answer.status < 300) return { status: answer.status };
  const message = `Webhook ${request.method} ${url.origin}${url.pathname} answered ${answer.status}${answer.snippet ? `: ${answer.snippet}` : ''}`;
  throw Object.assign(retryableStatus(answer.status) ? new WebhookRetryableError(message) : new PermanentStepError(message), { status: answer.status });
}

/** The HTTP status a failed call was answered with; undefined when it got no answer (refused target, timeout, network). */
export function answeredStatus(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
