import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { DataSource } from 'typeorm';
import { createWorkflowStepActivities } from '../../activities/workflow-steps';
import { loadConfig } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { createMailer } from '../../src/mailer';
import { Delivery } from '../../src/sending/delivery';
import { PermanentStepError } from '../../src/automations/errors';
import { sendWebhook, WebhookRetryableError } from '../../src/automations/webhook-client';
import type { ExecutionRef } from '../../workflows/shared';
import { createContact, createProject, createWorkflow } from './fixtures';

const silent = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A request the local receiver got. */
interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP receiver on loopback that answers with the status `respond` gives (or never, for null). */
class Receiver {
  readonly requests: Received[] = [];
  respond: (request: Received) => number | null = () => 200;
  private server!: Server;

  async start() {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(received);
        const status = this.respond(received);
        if (status !== null) res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get port() {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook') {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('WEBHOOK step activity (callWebhook)', () => {
  let dataSource: DataSource;
  const receiver = new Receiver();
  let execution: ExecutionRef;
  let contactId: string;

  /** The step activities under a configuration (WEBHOOK_ALLOW_PRIVATE in particular). */
  function activities(env: Record<string, string>) {
    const config = loadConfig({ ...process.env, ...env });
    const dispatcher = new EventDispatcher();
    const contacts = new ContactsService(dataSource, dispatcher);
    const delivery = new Delivery(dataSource, createMailer(config, dataSource), config, contacts);
    return createWorkflowStepActivities({ dataSource, config, contacts, delivery });
  }

  const allowed = () => activities({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, ...args: A) =>
    new MockActivityEnvironment(undefined, { logger: silent }).run(fn, ...args);

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
    await receiver.start();
    const { projectId } = await createProject(dataSource);
    ({ contactId } = await createContact(dataSource, projectId, { email: 'ada@example.test', data: { plan: 'pro', first: 'Ada' } }));
    const { workflowId } = await createWorkflow(dataSource, projectId, { name: 'Onboarding', steps: [{ key: 'hook', type: 'WEBHOOK' }] });
    execution = {
      executionId: randomUUID(),
      projectId,
      workflowId,
      contactId,
      context: { coupon: 'WELCOME' },
      eventName: 'signup',
      eventData: { source: 'ads' },
    };
  });
  afterAll(async () => {
    await receiver.close();
    await dataSource?.destroy();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.respond = () => 200;
  });

  it('POSTs the default JSON payload to a loopback receiver when private targets are allowed', async () => {
    const response = await run(allowed().callWebhook, execution, 'step-1', { url: receiver.url(), headers: { 'X-Token': 'secret' } });
    expect(response).toEqual({ status: 200 });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-token']).toBe('secret');
    expect(request.headers['idempotency-key']).toBe(`${execution.executionId}/step-1`);
    expect(JSON.parse(request.body)).toEqual({
      event: { name: 'signup', data: { source: 'ads' } },
      contact: { id: contactId, email: 'ada@example.test', subscribed: true, data: { plan: 'pro', first: 'Ada' } },
      workflow: { id: execution.workflowId, name: 'Onboarding' },
      execution: { id: execution.executionId },
    });
  });

  it('renders a body string with the template renderer, scoped like an email', async () => {
    const body = '{"hello":"{{ first }}","email":"{{ email }}","coupon":"{{ coupon }}","source":"{{ source }}","missing":"{{ nope ?? \'none\' }}"}';
    await run(allowed().callWebhook, execution, 'step-1', { url: receiver.url(), method: 'PUT', body });
    expect(receiver.requests[0].method).toBe('PUT');
    expect(JSON.parse(receiver.requests[0].body)).toEqual({ hello: 'Ada', email: 'ada@example.test', coupon: 'WELCOME', source: 'ads', missing: 'none' });
  });

  it('refuses loopback and private targets for good unless WEBHOOK_ALLOW_PRIVATE is true', async () => {
    const { callWebhook: refusing } = activities({ WEBHOOK_ALLOW_PRIVATE: 'false' });
    for (const url of [receiver.url(), `http://localhost:${receiver.port}/hook`, 'http://10.1.2.3/hook', 'http://[::1]/hook']) {
      const error = await run(refusing, execution, 'step-1', { url }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ApplicationFailure);
      expect((error as ApplicationFailure).nonRetryable).toBe(true);
      expect((error as ApplicationFailure).message).toMatch(/not public|non-public/);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it.each([
    ['NAT64', '64:ff9b::7f00:1'],
    ['6to4', '2002:7f00:1::1'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-mapped', '::ffff:127.0.0.1'],
  ])('refuses for good a %s IPv6 literal wrapping 127.0.0.1', async (_form, literal) => {
    const { callWebhook: refusing } = activities({ WEBHOOK_ALLOW_PRIVATE: 'false' });
    const error = await run(refusing, execution, 'step-1', { url: `http://[${literal}]:${receiver.port}/hook` }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).nonRetryable).toBe(true);
    expect((error as ApplicationFailure).message).toMatch(/is not public; set WEBHOOK_ALLOW_PRIVATE=true/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('fails for good on 4xx answers but 408 and 429, and for a retry on 5xx, 408 and 429', async () => {
    const { callWebhook: call } = allowed();
    for (const [status, retryable] of [[400, false], [404, false], [408, true], [429, true], [500, true], [503, true]] as const) {
      receiver.respond = () => status;
      const error = (await run(call, execution, 'step-1', { url: receiver.url() }).catch((err: unknown) => err)) as Error;
      expect(error.message).toContain(`answered ${status}`);
      expect(error instanceof ApplicationFailure && error.nonRetryable).toBe(!retryable);
    }
  });

  it('gives up a call that does not answer within the timeout, for a retry', async () => {
    receiver.respond = () => null;
    const started = Date.now();
    const error = await sendWebhook({ url: receiver.url(), method: 'POST', headers: {}, body: '{}' }, { allowPrivate: true, timeoutMs: 500 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(WebhookRetryableError);
    expect((error as Error).message).toMatch(/timed out after 0.5 s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses URLs that are not http(s) for good', async () => {
    const error = await sendWebhook({ url: 'ftp://example.com/x', method: 'POST', headers: {}, body: '{}' }, { allowPrivate: true, timeoutMs: 500 }).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(PermanentStepError);
  });
});
