import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { createMailer } from '../../src/mailer';
import { Delivery } from '../../src/sending/delivery';
import { MAX_SEND_ATTEMPTS, retryDelaySeconds, SendLanes } from '../../src/sending/send-lanes';
import { SendQueueBell } from '../../src/sending/send-queue-bell';
import { claimDueEmails, freeHeld, takeBackLane } from '../../src/sending/send-queue-queries';
import { claimQueuedEmails } from '../../src/sending/send-queries';
import { createProject } from '../automations/fixtures';
import { emailTag, SesServer } from '../support/ses-server';

/**
 * The send lanes' passes, run directly on the shared database against the SES double: each test
 * queues its emails on a task queue of its own, which no worker's lanes drain.
 */
describe('SendLanes', () => {
  let dataSource: DataSource;
  let ses: SesServer;
  let lanes: SendLanes;
  let projectId: string;
  let domain: string;
  let queue: string;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
    ses = await SesServer.start();
    // The SDK's default credential chain reads these; the SES double accepts any.
    process.env.AWS_ACCESS_KEY_ID = 'AKIDTEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'test-secret';
    const config = loadConfig({ ...process.env, SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint });
    const delivery = new Delivery(dataSource, createMailer(config, dataSource), config, new ContactsService(dataSource, new EventDispatcher()));
    lanes = new SendLanes(dataSource, delivery, new SendQueueBell());
    ({ projectId, domain } = await createProject(dataSource));
  });
  afterAll(async () => {
    await ses?.close();
    await dataSource?.destroy();
  });
  beforeEach(() => {
    queue = `lanes-${randomUUID()}`;
    ses.reset();
  });

  /** Queues an email due `dueInSeconds` from now (held by `lane` when given); answers its id. */
  const queueEmail = async (options: { dueInSeconds?: number; lane?: number; attempts?: number } = {}) => {
    const [{ id }]: { id: string }[] = await dataSource.query(
      `INSERT INTO emails (project_id, source, type, to_email, "from", subject, body, headers, variables, status, attempts, due_at, send_queue, send_lane)
       VALUES ($1, 'SEND', 'TRANSACTIONAL', $2, $3, 'Hello', '<p>Hi</p>', '{}', '{}', 'QUEUED', $4, now() + make_interval(secs => $5), $6, $7) RETURNING id`,
      [projectId, `${randomUUID()}@example.com`, `hello@${domain}`, options.attempts ?? 0, options.dueInSeconds ?? 0, queue, options.lane ?? null],
    );
    return id;
  };
  const email = async (id: string) =>
    (await dataSource.query('SELECT status, attempts, error, send_lane, due_at > now() AS later FROM emails WHERE id = $1', [id]))[0];
  const sent = (id: string) => ses.emails.filter((captured) => emailTag(captured, 'emailId') === id);
  /** One pass of `lane` that ends `ms` from now. */
  const pass = (lane: number, ms = 500) => lanes.drain(queue, lane, { untilMs: Date.now() + ms, heartbeat: () => undefined });

  it('sends the due emails of its queue once each and leaves those not yet due', async () => {
    const due = [await queueEmail(), await queueEmail(), await queueEmail()];
    const later = await queueEmail({ dueInSeconds: 3600 });
    expect(await pass(0)).toBe(3);
    for (const id of due) {
      expect(await email(id)).toMatchObject({ status: 'SENT', attempts: 1 });
      expect(sent(id)).toHaveLength(1);
    }
    expect(await email(later)).toMatchObject({ status: 'QUEUED', attempts: 0, send_lane: null });
    expect(await pass(0, 200)).toBe(0);
    expect(ses.emails).toHaveLength(3);
  });

  it('takes back what its own lane held when a pass was cut off, and leaves another lane\'s', async () => {
    const ownHeld = await queueEmail({ lane: 0 });
    const otherHeld = await queueEmail({ lane: 1 });
    expect(await pass(0)).toBe(1);
    expect(await email(ownHeld)).toMatchObject({ status: 'SENT' });
    expect(await email(otherHeld)).toMatchObject({ status: 'QUEUED', send_lane: 1 });
    expect(sent(otherHeld)).toHaveLength(0);
  });

  it('frees an email SES throttles, due again after its backoff, and sends it on a later attempt', async () => {
    ses.failNext(1, 429, 'TooManyRequestsException');
    const id = await queueEmail();
    await pass(0);
    expect(await email(id)).toMatchObject({ status: 'QUEUED', attempts: 1, send_lane: null, later: true });
    await dataSource.query('UPDATE emails SET due_at = now() WHERE id = $1', [id]);
    await pass(0);
    expect(await email(id)).toMatchObject({ status: 'SENT', attempts: 2 });
    expect(sent(id)).toHaveLength(1);
  });

  it('marks an email FAILED at once when SES rejects it for good, and after its last transient failure', async () => {
    ses.failNext(1, 400, 'MessageRejected', 'Email address is not verified.');
    const rejected = await queueEmail();
    await pass(0);
    expect(await email(rejected)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringContaining('Email address is not verified') });
    ses.failNext(1, 503, 'ServiceUnavailable');
    const worn = await queueEmail({ attempts: MAX_SEND_ATTEMPTS - 1 });
    await pass(0);
    expect(await email(worn)).toMatchObject({ status: 'FAILED', attempts: MAX_SEND_ATTEMPTS, error: expect.stringContaining(`Gave up after ${MAX_SEND_ATTEMPTS} attempts`) });
    expect(ses.emails).toHaveLength(0);
  });

  it('marks an email FAILED without sending it when crashes mid-send used up its attempts', async () => {
    const id = await queueEmail({ attempts: MAX_SEND_ATTEMPTS });
    await pass(0);
    expect(await email(id)).toMatchObject({ status: 'FAILED', error: `Gave up after ${MAX_SEND_ATTEMPTS} attempts` });
    expect(sent(id)).toHaveLength(0);
  });

  it('lets a pass send only what it still holds: a later pass of its lane takes its emails back', async () => {
    const id = await queueEmail();
    const manager = dataSource.manager;
    const cutOff = { queue, lane: 0, token: randomUUID() };
    const later = { queue, lane: 0, token: randomUUID() };
    expect((await claimDueEmails(manager, cutOff, 10)).map((claimed) => claimed.id)).toEqual([id]);
    await takeBackLane(manager, later);
    expect((await claimDueEmails(manager, later, 10)).map((claimed) => claimed.id)).toEqual([id]);
    // The cut-off pass, still running, may neither send it nor free it.
    expect(await claimQueuedEmails(manager, [id], cutOff.token)).toEqual(new Set());
    await freeHeld(manager, cutOff, [id]);
    expect(await email(id)).toMatchObject({ status: 'QUEUED', attempts: 0, send_lane: 0 });
    expect(await claimQueuedEmails(manager, [id], later.token)).toEqual(new Set([id]));
    expect(await email(id)).toMatchObject({ attempts: 1 });
  });

  it('backs off 1, 2, 4 ... seconds, at most 5 minutes', () => {
    expect([1, 2, 3, 4, 9, 10, 16].map(retryDelaySeconds)).toEqual([1, 2, 4, 8, 256, 300, 300]);
  });
});
