import { ConfigError, loadConfig } from '../../src/config';
import { Client, markEmailVerified, signupWithProject, startApi, uniqueEmail, type TestApi } from '../support/api';
import { signedDelivery, StripeServer, stripeEvent, subscriptionObject } from '../support/stripe-server';

const SECRET_KEY = 'sk_test_herald';
const WEBHOOK_SECRET = 'whsec_test_herald';
const PUBLIC_URL = 'https://herald.example.test';
const projectPath = (id: string) => `/users/@me/projects/${id}`;

/** Posts a webhook delivery as Stripe sends it: JSON bytes with a `Stripe-Signature` header. */
function deliver(api: TestApi, delivery: { body: string; signature?: string }) {
  const headers: Record<string, string> = delivery.signature ? { 'stripe-signature': delivery.signature } : {};
  return new Client(api.url).call('POST', '/webhooks/incoming/payments', { rawBody: delivery.body, headers });
}

async function billingAccount(api: TestApi, projectId: string) {
  const [row] = await api.dataSource.query(
    `SELECT customer_id, subscription_id, subscription_status, price_id, current_period_end
       FROM billing_accounts WHERE project_id = $1`,
    [projectId],
  );
  return row;
}

describe('billing without STRIPE_SECRET_KEY', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ env: { STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' } });
  });
  afterAll(() => api.close());

  it('answers checkout and portal with 501 BILLING_DISABLED and invoices with []', async () => {
    const { client, project } = await signupWithProject(api);
    const checkout = await client.post(`${projectPath(project.id)}/checkout`, {});
    expect(checkout.status).toBe(501);
    expect(checkout.body.error).toEqual(expect.objectContaining({ code: 'BILLING_DISABLED', statusCode: 501 }));
    const portal = await client.post(`${projectPath(project.id)}/billing-portal`, {});
    expect(portal.status).toBe(501);
    expect(portal.body.error.code).toBe('BILLING_DISABLED');
    const invoices = await client.get(`${projectPath(project.id)}/billing-invoices`);
    expect(invoices.status).toBe(200);
    expect(invoices.body).toEqual([]);
  });

  it('refuses payment events with 501 and reports billing off in /config', async () => {
    const delivery = signedDelivery(stripeEvent('customer.subscription.updated', {}), WEBHOOK_SECRET);
    const answer = await deliver(api, delivery);
    expect(answer.status).toBe(501);
    expect(answer.body.error.code).toBe('BILLING_DISABLED');
    const config = await new Client(api.url).get('/config');
    expect(config.body.features.billing).toBe(false);
  });

  it('still hides projects from non-members (404)', async () => {
    const { project } = await signupWithProject(api);
    const { client: stranger } = await signupWithProject(api);
    expect((await stranger.get(`${projectPath(project.id)}/billing-invoices`)).status).toBe(404);
    expect((await stranger.post(`${projectPath(project.id)}/checkout`, {})).status).toBe(404);
  });
});

describe('billing through Stripe (local Stripe API)', () => {
  let stripe: StripeServer;
  let api: TestApi;

  beforeAll(async () => {
    stripe = await StripeServer.start(['price_default', 'price_pro']);
    api = await startApi({
      env: {
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_BASE: stripe.url,
        STRIPE_PRICE_ID: 'price_default',
        PUBLIC_URL,
      },
    });
  });
  afterAll(async () => {
    await api.close();
    await stripe.close();
  });

  /** A project that went through checkout once, so it has a Stripe customer. */
  async function checkedOut() {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`${projectPath(project.id)}/checkout`, {});
    expect(answer.status).toBe(201);
    const { customer_id: customerId } = await billingAccount(api, project.id);
    return { client, project, customerId: customerId as string };
  }

  /** Sends a signed event and expects it accepted. */
  async function send(event: Record<string, any>) {
    const answer = await deliver(api, signedDelivery(event, WEBHOOK_SECRET));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ received: true });
  }

  it('reports billing on in /config', async () => {
    expect((await new Client(api.url).get('/config')).body.features.billing).toBe(true);
  });

  it('creates one Stripe customer per project, even for concurrent checkouts, and a subscription session', async () => {
    const { client, project } = await signupWithProject(api);
    const path = `${projectPath(project.id)}/checkout`;
    stripe.gather('POST', '/v1/customers', 2);
    const answers = await Promise.all([client.post(path, {}), client.post(path, {})]);
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({ id: expect.stringMatching(/^cs_test_/), url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\//) });
    }
    const again = await client.post(path, {});
    expect(again.status).toBe(201);

    const creations = stripe.requestsTo('POST', '/v1/customers').filter((r) => r.form.metadata?.projectId === project.id);
    expect(creations.map((r) => r.idempotencyKey)).toEqual([`herald-customer-${project.id}`, `herald-customer-${project.id}`]);
    const customers = [...stripe.customers.values()].filter((c) => c.metadata.projectId === project.id);
    expect(customers).toHaveLength(1);
    expect((await billingAccount(api, project.id)).customer_id).toBe(customers[0].id);

    const sessions = stripe.requestsTo('POST', '/v1/checkout/sessions').filter((r) => r.form.client_reference_id === project.id);
    expect(sessions).toHaveLength(3);
    expect(sessions[2].authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(sessions[2].form).toEqual({
      mode: 'subscription',
      customer: customers[0].id,
      client_reference_id: project.id,
      line_items: [{ price: 'price_default', quantity: '1' }],
      success_url: `${PUBLIC_URL}/projects/${project.id}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${PUBLIC_URL}/projects/${project.id}/billing?checkout=cancel`,
      metadata: { projectId: project.id },
      subscription_data: { metadata: { projectId: project.id } },
    });
  });

  it('checks out with the price and return URLs the request names', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`${projectPath(project.id)}/checkout`, {
      priceId: 'price_pro',
      successUrl: 'https://app.example.test/paid',
      cancelUrl: 'https://app.example.test/not-paid',
    });
    expect(answer.status).toBe(201);
    const [session] = stripe.requestsTo('POST', '/v1/checkout/sessions').filter((r) => r.form.client_reference_id === project.id);
    expect(session.form).toEqual(expect.objectContaining({
      line_items: [{ price: 'price_pro', quantity: '1' }],
      success_url: 'https://app.example.test/paid',
      cancel_url: 'https://app.example.test/not-paid',
    }));
  });

  it('answers 502 BILLING_PROVIDER_ERROR with Stripe\'s message when Stripe refuses the price', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`${projectPath(project.id)}/checkout`, { priceId: 'price_unknown' });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toEqual(expect.objectContaining({
      code: 'BILLING_PROVIDER_ERROR',
      message: "Stripe: No such price: 'price_unknown'",
      details: { type: 'invalid_request_error', code: 'resource_missing' },
    }));
  });

  it('lets only owners and admins check out or open the portal (403), and hides the project from others (404)', async () => {
    const { client, project } = await signupWithProject(api);
    const member = new Client(api.url);
    const memberEmail = uniqueEmail('member');
    await member.post('/auth/signup', { email: memberEmail, password: 'correct horse battery' });
    await markEmailVerified(api, memberEmail);
    expect((await client.post(`/projects/${project.id}/members`, { email: memberEmail })).status).toBe(201);
    const { client: stranger } = await signupWithProject(api);
    const sent = stripe.requests.length;

    const memberCheckout = await member.post(`${projectPath(project.id)}/checkout`, {});
    expect(memberCheckout.status).toBe(403);
    expect((await member.post(`${projectPath(project.id)}/billing-portal`, {})).status).toBe(403);
    expect((await member.get(`${projectPath(project.id)}/billing-invoices`)).body).toEqual([]);
    expect((await stranger.post(`${projectPath(project.id)}/checkout`, {})).status).toBe(404);
    expect((await stranger.get(`${projectPath(project.id)}/billing-invoices`)).status).toBe(404);
    expect((await new Client(api.url).post(`${projectPath(project.id)}/checkout`, {})).status).toBe(401);
    expect(stripe.requests.length).toBe(sent);
    expect(await billingAccount(api, project.id)).toBeUndefined();
  });

  it('validates the checkout body (422)', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`${projectPath(project.id)}/checkout`, { successUrl: 'not a url', priceId: 42 });
    expect(answer.status).toBe(422);
    const fields = answer.body.error.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['successUrl', 'priceId']));
  });

  it('opens the billing portal only after the first checkout (409 NO_BILLING_ACCOUNT before)', async () => {
    const { client, project } = await signupWithProject(api);
    const before = await client.post(`${projectPath(project.id)}/billing-portal`, {});
    expect(before.status).toBe(409);
    expect(before.body.error.code).toBe('NO_BILLING_ACCOUNT');

    await client.post(`${projectPath(project.id)}/checkout`, {});
    const { customer_id: customerId } = await billingAccount(api, project.id);
    const after = await client.post(`${projectPath(project.id)}/billing-portal`, {});
    expect(after.status).toBe(201);
    expect(after.body).toEqual({ url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/) });
    const [request] = stripe.requestsTo('POST', '/v1/billing_portal/sessions').filter((r) => r.form.customer === customerId);
    expect(request.form).toEqual({ customer: customerId, return_url: `${PUBLIC_URL}/projects/${project.id}/billing` });
  });

  it('lists the customer\'s invoices as Stripe reports them, [] before the first checkout', async () => {
    const { client, project } = await signupWithProject(api);
    expect((await client.get(`${projectPath(project.id)}/billing-invoices`)).body).toEqual([]);

    const { client: payer, project: paying, customerId } = await checkedOut();
    stripe.invoices.push(
      {
        id: 'in_paid1', object: 'invoice', customer: customerId, number: 'HRLD-0001', status: 'paid', currency: 'eur',
        amount_due: 1900, amount_paid: 1900, total: 1900, created: 1767225600, period_start: 1767225600, period_end: 1769904000,
        hosted_invoice_url: 'https://invoice.stripe.test/i/in_paid1', invoice_pdf: 'https://pay.stripe.test/invoice/in_paid1/pdf',
      },
      { id: 'in_other', object: 'invoice', customer: 'cus_someone_else', status: 'paid', currency: 'eur', created: 1767225600, period_start: 1767225600, period_end: 1767225600 },
    );
    const answer = await payer.get(`${projectPath(paying.id)}/billing-invoices`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      {
        id: 'in_paid1',
        number: 'HRLD-0001',
        status: 'paid',
        currency: 'eur',
        amountDue: 1900,
        amountPaid: 1900,
        total: 1900,
        createdAt: '2026-01-01T00:00:00.000Z',
        periodStart: '2026-01-01T00:00:00.000Z',
        periodEnd: '2026-02-01T00:00:00.000Z',
        hostedInvoiceUrl: 'https://invoice.stripe.test/i/in_paid1',
        invoicePdf: 'https://pay.stripe.test/invoice/in_paid1/pdf',
      },
    ]);
    const [list] = stripe.requestsTo('GET', '/v1/invoices').filter((r) => r.query.customer === customerId);
    expect(list.query).toEqual({ customer: customerId, limit: '100' });
  });

  it('refuses a webhook with a bad or missing signature (400 INVALID_SIGNATURE) and stores nothing', async () => {
    const { project, customerId } = await checkedOut();
    const event = stripeEvent('checkout.session.completed', {
      id: 'cs_forged', object: 'checkout.session', mode: 'subscription', client_reference_id: project.id, customer: customerId, subscription: 'sub_forged',
    });
    const forged = signedDelivery(event, 'whsec_not_the_secret');
    const wrong = await deliver(api, forged);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('INVALID_SIGNATURE');
    const tampered = signedDelivery(event, WEBHOOK_SECRET);
    expect((await deliver(api, { body: tampered.body.replace('sub_forged', 'sub_other'), signature: tampered.signature })).status).toBe(400);
    const stale = signedDelivery(event, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600);
    expect((await deliver(api, stale)).status).toBe(400);
    const unsigned = await deliver(api, { body: forged.body });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.error.code).toBe('INVALID_SIGNATURE');

    expect((await billingAccount(api, project.id)).subscription_id).toBeNull();
    expect(await api.dataSource.query('SELECT id FROM billing_webhook_events WHERE id = $1', [event.id])).toEqual([]);
  });

  it('links a completed checkout and applies subscription updates, each event once', async () => {
    const { project, customerId } = await checkedOut();
    const periodEnd = 1798761600; // 2027-01-01
    await send(stripeEvent('checkout.session.completed', {
      id: 'cs_done', object: 'checkout.session', mode: 'subscription', client_reference_id: project.id, customer: customerId, subscription: 'sub_linked',
    }));
    expect(await billingAccount(api, project.id)).toEqual(expect.objectContaining({ customer_id: customerId, subscription_id: 'sub_linked', subscription_status: null }));

    const pastDue = stripeEvent('customer.subscription.updated', subscriptionObject({ id: 'sub_linked', customer: customerId, status: 'past_due', price: 'price_default', periodEnd }));
    await send(pastDue);
    await send(stripeEvent('customer.subscription.updated', subscriptionObject({ id: 'sub_linked', customer: customerId, status: 'active', price: 'price_pro', periodEnd })));
    await send(pastDue);

    expect(await billingAccount(api, project.id)).toEqual({
      customer_id: customerId,
      subscription_id: 'sub_linked',
      subscription_status: 'active',
      price_id: 'price_pro',
      current_period_end: new Date(periodEnd * 1000),
    });
    const receipts = await api.dataSource.query('SELECT type FROM billing_webhook_events WHERE id = $1', [pastDue.id]);
    expect(receipts).toEqual([{ type: 'customer.subscription.updated' }]);
  });

  it('refuses a second checkout while subscribed, records cancellation, and never revives an ended subscription', async () => {
    const { client, project, customerId } = await checkedOut();
    const periodEnd = 1798761600;
    const active = subscriptionObject({ id: 'sub_ending', customer: customerId, status: 'active', price: 'price_default', periodEnd });
    await send(stripeEvent('customer.subscription.created', active));
    const refused = await client.post(`${projectPath(project.id)}/checkout`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ALREADY_SUBSCRIBED');

    await send(stripeEvent('customer.subscription.deleted', { ...active, status: 'canceled' }));
    expect((await billingAccount(api, project.id)).subscription_status).toBe('canceled');
    await send(stripeEvent('customer.subscription.updated', active));
    expect((await billingAccount(api, project.id)).subscription_status).toBe('canceled');

    expect((await client.post(`${projectPath(project.id)}/checkout`, {})).status).toBe(201);
  });

  it('reads the period end from the subscription itself under older API versions', async () => {
    const { project, customerId } = await checkedOut();
    await send(stripeEvent('customer.subscription.created', {
      id: 'sub_legacy', object: 'subscription', customer: customerId, status: 'trialing', current_period_end: 1798761600,
      items: { object: 'list', data: [{ id: 'si_legacy', object: 'subscription_item', price: { id: 'price_default' } }] },
    }));
    expect(await billingAccount(api, project.id)).toEqual(expect.objectContaining({
      subscription_id: 'sub_legacy', subscription_status: 'trialing', current_period_end: new Date(1798761600 * 1000),
    }));
  });

  it('on invoice.payment_failed fetches the subscription from Stripe and records its status', async () => {
    const { project, customerId } = await checkedOut();
    stripe.subscriptions.set('sub_failing', subscriptionObject({ id: 'sub_failing', customer: customerId, status: 'past_due', price: 'price_default', periodEnd: 1798761600 }));
    await send(stripeEvent('invoice.payment_failed', {
      id: 'in_failed', object: 'invoice', customer: customerId, status: 'open',
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_failing' } },
    }));
    expect(stripe.requestsTo('GET', '/v1/subscriptions/sub_failing')).toHaveLength(1);
    expect(await billingAccount(api, project.id)).toEqual(expect.objectContaining({ subscription_id: 'sub_failing', subscription_status: 'past_due' }));
  });

  it('acknowledges event types it does not act on without storing them', async () => {
    const event = stripeEvent('customer.created', { id: 'cus_elsewhere', object: 'customer' });
    await send(event);
    expect(await api.dataSource.query('SELECT id FROM billing_webhook_events WHERE id = $1', [event.id])).toEqual([]);
  });
});

describe('billing with a Stripe key but no default price or webhook secret', () => {
  let stripe: StripeServer;
  let api: TestApi;

  beforeAll(async () => {
    stripe = await StripeServer.start(['price_default']);
    api = await startApi({ env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_API_BASE: stripe.url, STRIPE_WEBHOOK_SECRET: '', STRIPE_PRICE_ID: '' } });
  });
  afterAll(async () => {
    await api.close();
    await stripe.close();
  });

  it('answers a checkout naming no price with 422 and calls nothing at Stripe', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`${projectPath(project.id)}/checkout`, {});
    expect(answer.status).toBe(422);
    expect(answer.body.error.errors).toEqual([expect.objectContaining({ field: 'priceId', code: 'required' })]);
    expect(stripe.requests).toEqual([]);
  });

  it('accepts no payment event, signed or not (501 BILLING_DISABLED)', async () => {
    const answer = await deliver(api, signedDelivery(stripeEvent('customer.subscription.updated', {}), WEBHOOK_SECRET));
    expect(answer.status).toBe(501);
    expect(answer.body.error.code).toBe('BILLING_DISABLED');
  });
});

describe('STRIPE_API_BASE', () => {
  const load = (value: string) => loadConfig({ ...process.env, STRIPE_API_BASE: value });

  it('is split into the host, port and protocol the Stripe client takes', () => {
    expect(load('http://127.0.0.1:12111').stripeApi).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    expect(load('https://stripe-mock.internal/').stripeApi).toEqual({ host: 'stripe-mock.internal', port: 443, protocol: 'https' });
    expect(load('').stripeApi).toBeUndefined();
  });

  it('stops start-up on anything but an http(s) origin, naming the variable', () => {
    for (const bad of ['not a url', 'ftp://stripe.test', 'https://stripe.test/v1']) {
      expect(() => load(bad)).toThrow(ConfigError);
      expect(() => load(bad)).toThrow(/^STRIPE_API_BASE /);
    }
  });
});
