import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeServer, listenLoopback, readBody } from './http-double';

/**
 * A local stand-in for the Stripe REST API, speaking its wire protocol (form-encoded
 * bodies, bracketed keys, JSON answers, `{ error }` bodies) so the real `stripe` SDK can be
 * pointed at it with STRIPE_API_BASE. It records every request and keeps the objects it
 * created. Endpoints: POST /v1/customers, POST /v1/checkout/sessions,
 * POST /v1/billing_portal/sessions, GET /v1/invoices, GET /v1/subscriptions/{id}.
 * Like Stripe, a POST repeated with the same Idempotency-Key gets the first answer again.
 */

/** One request as Stripe received it. */
export interface StripeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The form body decoded into nested objects and arrays (`line_items[0][price]`). */
  form: Record<string, any>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

type StripeObject = Record<string, any>;

interface Answer {
  status: number;
  body: unknown;
}

class StripeFault extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Decodes a Stripe form body: `a[b][0][c]=x` becomes `{ a: { b: [ { c: 'x' } ] } }`. */
function parseStripeForm(text: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node = root;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) node[part] = value;
      else node = node[part] ??= {};
    });
  }
  const arrays = (node: unknown): unknown => {
    if (!node || typeof node !== 'object') return node;
    const entries = Object.entries(node).map(([k, v]) => [k, arrays(v)] as const);
    const indexed = entries.length > 0 && entries.every(([k], i) => k === String(i));
    return indexed ? entries.map(([, v]) => v) : Object.fromEntries(entries);
  };
  return arrays(root) as Record<string, any>;
}

export class StripeServer {
  readonly requests: StripeRequest[] = [];
  readonly customers = new Map<string, StripeObject>();
  readonly subscriptions = new Map<string, StripeObject>();
  /** Invoices `GET /v1/invoices` lists, filtered by `customer`, newest first as given. */
  readonly invoices: StripeObject[] = [];
  /** Prices a checkout may use; any other is refused as Stripe refuses an unknown price. */
  readonly prices = new Set<string>();
  private readonly replays = new Map<string, Answer>();
  private gathering?: { method: string; path: string; count: number; held: Array<() => void> };

  private constructor(
    private readonly server: Server,
    /** The base to hand Herald as STRIPE_API_BASE, e.g. `http://127.0.0.1:41234`. */
    readonly url: string,
  ) {}

  /** Starts the server on a free loopback port, knowing the given prices. */
  static async start(prices: string[] = []): Promise<StripeServer> {
    let instance: StripeServer | undefined;
    const { server, url } = await listenLoopback((req, res) => instance!.handle(req, res));
    instance = new StripeServer(server, url);
    prices.forEach((price) => instance.prices.add(price));
    return instance;
  }

  /** The recorded requests to one endpoint. */
  requestsTo(method: string, path: string): StripeRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /**
   * Holds the answers to one endpoint until `count` requests to it have arrived (or 10 s
   * have passed), so concurrent callers are all in flight before any of them hears back.
   */
  gather(method: string, path: string, count: number): void {
    this.gathering = { method, path, count, held: [] };
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async held(request: StripeRequest): Promise<void> {
    const gathering = this.gathering;
    if (!gathering || gathering.method !== request.method || gathering.path !== request.path) return;
    await new Promise<void>((release) => {
      gathering.held.push(release);
      if (gathering.held.length < gathering.count) {
        setTimeout(release, 10_000).unref();
        return;
      }
      this.gathering = undefined;
      gathering.held.forEach((r) => r());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', this.url);
    const request: StripeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: parseStripeForm(body),
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      authorization: req.headers.authorization,
    };
    this.requests.push(request);
    await this.held(request);
    const replayKey = request.method === 'POST' && request.idempotencyKey ? `${request.path} ${request.idempotencyKey}` : undefined;
    let answer = replayKey ? this.replays.get(replayKey) : undefined;
    if (!answer) {
      answer = this.answer(request);
      if (replayKey) this.replays.set(replayKey, answer);
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': randomId('req') });
    res.end(JSON.stringify(answer.body));
  }

  private answer(request: StripeRequest): Answer {
    try {
      return { status: 200, body: this.route(request) };
    } catch (err) {
      if (!(err instanceof StripeFault)) throw err;
      const error = { type: 'invalid_request_error', code: 'resource_missing', message: err.message, param: err.param };
      return { status: err.status, body: { error } };
    }
  }

  private route(request: StripeRequest): StripeObject {
    const { method, path, form } = request;
    if (method === 'POST' && path === '/v1/customers') return this.createCustomer(form);
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createCheckoutSession(form);
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      const id = randomId('bps');
      this.customer(form.customer, 'customer');
      return { id, object: 'billing_portal.session', customer: form.customer, return_url: form.return_url, url: `https://billing.stripe.test/p/session/${id}` };
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const data = this.invoices.filter((invoice) => invoice.customer === request.query.customer).slice(0, Number(request.query.limit ?? 10));
      return { object: 'list', data, has_more: false, url: '/v1/invoices' };
    }
    const subscription = method === 'GET' ? /^\/v1\/subscriptions\/([^/]+)$/.exec(path) : null;
    if (subscription) {
      const found = this.subscriptions.get(decodeURIComponent(subscription[1]));
      if (!found) throw new StripeFault(404, `No such subscription: '${subscription[1]}'`, 'id');
      return found;
    }
    throw new StripeFault(404, `Unrecognized request URL (${method}: ${path}).`);
  }

  private createCustomer(form: StripeObject): StripeObject {
    const customer = { id: randomId('cus'), object: 'customer', created: now(), description: form.description ?? null, email: null, metadata: form.metadata ?? {}, livemode: false };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private createCheckoutSession(form: StripeObject): StripeObject {
    this.customer(form.customer, 'customer');
    form.line_items?.forEach((item: StripeObject, index: number) => {
      if (!this.prices.has(item.price)) throw new StripeFault(400, `No such price: '${item.price}'`, `line_items[${index}][price]`);
    });
    const id = randomId('cs_test');
    return {
      id,
      object: 'checkout.session',
      mode: form.mode,
      customer: form.customer,
      client_reference_id: form.client_reference_id ?? null,
      metadata: form.metadata ?? {},
      success_url: form.success_url,
      cancel_url: form.cancel_url ?? null,
      status: 'open',
      subscription: null,
      url: `https://checkout.stripe.test/c/pay/${id}`,
    };
  }

  private customer(id: unknown, param: string): StripeObject {
    const customer = typeof id === 'string' ? this.customers.get(id) : undefined;
    if (!customer) throw new StripeFault(400, `No such customer: '${String(id)}'`, param);
    return customer;
  }
}

/** A Stripe event (snapshot payload) carrying `object`. */
export function stripeEvent(type: string, object: StripeObject): StripeObject {
  return { id: randomId('evt'), object: 'event', api_version: '2026-10-28.endive', created: now(), type, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object } };
}

/** A subscription as current API versions shape it (the period on its items). */
export function subscriptionObject(fields: { id: string; customer: string; status: string; price: string; periodEnd: number }): StripeObject {
  return {
    id: fields.id,
    object: 'subscription',
    customer: fields.customer,
    status: fields.status,
    items: {
      object: 'list',
      data: [{ id: randomId('si'), object: 'subscription_item', price: { id: fields.price, object: 'price' }, current_period_start: fields.periodEnd - 30 * 86400, current_period_end: fields.periodEnd }],
    },
  };
}

/** The body and `Stripe-Signature` header of a webhook delivery, signed as Stripe signs it (HMAC-SHA256 of `t.body`). */
export function signedDelivery(event: StripeObject, secret: string, timestamp = now()): { body: string; signature: string } {
  const body = JSON.stringify(event);
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { body, signature: `t=${timestamp},v1=${v1}` };
}
