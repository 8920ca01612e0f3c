import { projectWithVerifiedDomain } from '../support/api';
import { emailTag } from '../support/ses-server';
import { useSesProject } from '../support/stack';
import { until } from '../support/wait';

/** How far ahead the real-time tests schedule: enough for the assertions made before it. */
const AHEAD_MS = 4000;

describe('scheduled sends, GET /emails/{id} and POST /emails/{id}/cancel', () => {
  const given = useSesProject('scheduled-send-test');

  const inAWhile = () => new Date(Date.now() + AHEAD_MS).toISOString();
  const send = (body: Record<string, unknown>) => given.client.post('/v1/send', { from: `hello@mail.${given.domain}`, subject: 'Later', body: '<p>Hi</p>', ...body }, { key: given.key });
  const sentTo = (emailId: string) => given.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);
  const getEmail = (id: string, as = given.key) => given.client.get(`/emails/${id}`, { key: as });
  const row = async (id: string) => (await given.api.dataSource.query('SELECT status, error, sent_at, scheduled_at FROM emails WHERE id = $1', [id]))[0];
  /** Waits for the email's delivery workflow to close; answers its result, or the name of the failure's cause. */
  const closed = (id: string) =>
    given.temporal.client.workflow
      .getHandle(`email/${id}`)
      .result()
      .then(
        (value: unknown) => value,
        (error: Error) => (error.cause as Error | undefined)?.name ?? error.name,
      );
  /**
   * Like `closed`, for an email whose cancel raced its timer. The Java test server refuses a
   * workflow task that cancels a timer it has just fired and then leaves the run with that task
   * started forever, neither timed out nor redelivered (temporalio/sdk-java#3088; a Temporal
   * server fails the task and the worker goes on). Such a run answers 'CANCELLED' once its
   * history ends that way: the email row and the sends are what this test checks then.
   */
  const closedOrStuckOnCancelTimer = async (id: string) => {
    const handle = given.temporal.client.workflow.getHandle(`email/${id}`);
    const stuck = async () => {
      const kinds = ((await handle.fetchHistory()).events ?? []).map((event) => Object.keys(event).find((key) => key.endsWith('EventAttributes')));
      return kinds.slice(-4).join() === 'timerStartedEventAttributes,workflowExecutionSignaledEventAttributes,workflowTaskScheduledEventAttributes,workflowTaskStartedEventAttributes';
    };
    const outcome = await Promise.race([closed(id), new Promise((resolve) => setTimeout(() => resolve(undefined), 15_000))]);
    return outcome ?? ((await stuck()) ? 'CANCELLED' : closed(id));
  };
  /** Waits until an email sent now leaves the send queue (QUEUED); answers its status then. */
  const settled = async (id: string) => (await until(() => row(id), (found) => found.status !== 'QUEUED', `email ${id} to leave the send queue`)).status;
  /** Waits until `at` has passed, so that a send the timer would have made has been made. */
  const past = async (at: string) => {
    while (Date.now() < Date.parse(at) + 1000) await new Promise((resolve) => setTimeout(resolve, 200));
  };

  it('holds an email SCHEDULED until scheduledAt, then sends it and it reads SENT', async () => {
    const scheduledAt = inAWhile();
    const answer = await send({ to: 'later@example.com', scheduledAt });
    expect(answer.status).toBe(200);
    const [email] = answer.body.data.emails;
    expect(email).toEqual({ contact: { id: expect.any(String), email: 'later@example.com' }, email: expect.any(String), status: 'SCHEDULED' });
    // Its own workflow sends it at its time: it is not in the send queue the lanes deliver.
    expect((await given.api.dataSource.query('SELECT due_at FROM emails WHERE id = $1', [email.email]))[0].due_at).toBeNull();
    const scheduled = await getEmail(email.email);
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toEqual({
      id: email.email,
      to: 'later@example.com',
      subject: 'Later',
      status: 'SCHEDULED',
      scheduledAt,
      sentAt: null,
      contactId: email.contact.id,
      createdAt: expect.any(String),
    });
    expect(sentTo(email.email)).toHaveLength(0);

    expect(await closed(email.email)).toBe('SENT');
    expect(sentTo(email.email)).toHaveLength(1);
    const sent = await getEmail(email.email);
    expect(sent.body).toMatchObject({ status: 'SENT', scheduledAt, sentAt: expect.any(String) });
    expect(Date.parse(sent.body.sentAt)).toBeGreaterThanOrEqual(Date.parse(scheduledAt));
  });

  it('cancels a SCHEDULED email: 200 and CANCELLED, its workflow ended, nothing sent after its time', async () => {
    const scheduledAt = inAWhile();
    const [email] = (await send({ to: 'cancel-me@example.com', scheduledAt })).body.data.emails;
    const cancelled = await given.client.post(`/emails/${email.email}/cancel`, undefined, { key: given.key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: email.email, status: 'CANCELLED', scheduledAt, sentAt: null });
    expect(await closed(email.email)).toBe('CANCELLED');
    await past(scheduledAt);
    expect(sentTo(email.email)).toHaveLength(0);
    expect((await getEmail(email.email)).body.status).toBe('CANCELLED');
    const again = await given.client.post(`/emails/${email.email}/cancel`, undefined, { key: given.key });
    expect([again.status, again.body.error.code, again.body.error.details]).toEqual([409, 'INVALID_STATE', { status: 'CANCELLED' }]);
  });

  it('ends an email cancelled in the database alone (its workflow never told) at its time, without sending', async () => {
    const [email] = (await send({ to: 'quiet-cancel@example.com', scheduledAt: inAWhile() })).body.data.emails;
    await given.api.dataSource.query(`UPDATE emails SET status = 'CANCELLED' WHERE id = $1 AND status = 'SCHEDULED'`, [email.email]);
    expect(await closed(email.email)).toBe('CANCELLED');
    expect(sentTo(email.email)).toHaveLength(0);
    expect((await row(email.email)).status).toBe('CANCELLED');
  });

  it('never both sends an email and answers its cancel with 200, when cancels race the timer', async () => {
    const scheduledAt = new Date(Date.now() + 2500).toISOString();
    const to = Array.from({ length: 12 }, (_, i) => `race-${i}@example.com`);
    const emails: { email: string }[] = (await send({ to, scheduledAt })).body.data.emails;
    while (Date.now() < Date.parse(scheduledAt) - 150) await new Promise((resolve) => setTimeout(resolve, 20));
    const cancels = await Promise.all(
      emails.map(async ({ email }, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 130));
        return (await given.client.post(`/emails/${email}/cancel`, undefined, { key: given.key })).status;
      }),
    );
    const outcomes = await Promise.all(emails.map(({ email }, i) => (cancels[i] === 200 ? closedOrStuckOnCancelTimer(email) : closed(email))));
    for (const [i, { email }] of emails.entries()) {
      const cancelled = cancels[i] === 200;
      expect([cancels[i], outcomes[i], sentTo(email).length, (await row(email)).status]).toEqual(
        cancelled ? [200, 'CANCELLED', 0, 'CANCELLED'] : [409, 'SENT', 1, 'SENT'],
      );
    }
  });

  it('refuses to cancel an email that is not SCHEDULED with 409 INVALID_STATE, and sends it all the same', async () => {
    const [email] = (await send({ to: 'already@example.com', scheduledAt: new Date(Date.now() + 1500).toISOString() })).body.data.emails;
    expect(await closed(email.email)).toBe('SENT');
    const answer = await given.client.post(`/emails/${email.email}/cancel`, undefined, { key: given.key });
    expect([answer.status, answer.body.error.code, answer.body.error.details]).toEqual([409, 'INVALID_STATE', { status: 'SENT' }]);
    expect(sentTo(email.email)).toHaveLength(1);
    const [now] = (await send({ to: 'now@example.com' })).body.data.emails;
    expect((await given.client.post(`/emails/${now.email}/cancel`, undefined, { key: given.key })).status).toBe(409);
  });

  it('checks suppression again at the time: an address suppressed meanwhile ends SUPPRESSED, nothing sent', async () => {
    const [email] = (await send({ to: 'suppressed-later@example.com', scheduledAt: inAWhile() })).body.data.emails;
    expect(email.status).toBe('SCHEDULED');
    expect((await given.client.post('/suppressions', { email: 'suppressed-later@example.com' }, { key: given.key })).status).toBe(201);
    expect(await closed(email.email)).toBe('SUPPRESSED');
    expect((await getEmail(email.email)).body.status).toBe('SUPPRESSED');
    expect(sentTo(email.email)).toHaveLength(0);
  });

  it('checks the emails cap again at the time without counting the email twice: sent at the cap, FAILED with the reason over it', async () => {
    const limit = (emails: number) => given.owner.call('PUT', `/users/@me/projects/${given.projectId}/billing-limits`, { body: { emails } });
    expect((await limit(2)).status).toBe(200);
    const first = (await send({ to: ['cap-1@example.com', 'cap-2@example.com'], scheduledAt: inAWhile() })).body.data.emails;
    expect(first.map((email: { status: string }) => email.status)).toEqual(['SCHEDULED', 'SCHEDULED']);
    // The two scheduled emails hold the whole allowance already.
    expect((await send({ to: 'cap-3@example.com' })).body.error.code).toBe('BILLING_LIMIT_EXCEEDED');
    expect((await limit(1)).status).toBe(200);
    const outcomes = await Promise.all(first.map((email: { email: string }) => closed(email.email)));
    expect([...outcomes].sort()).toEqual(['FAILED', 'SENT']);
    const failed = first.find((_email: unknown, i: number) => outcomes[i] === 'FAILED');
    const sent = first.find((_email: unknown, i: number) => outcomes[i] === 'SENT');
    expect((await row(failed.email)).error).toMatch(/^Not sent at its scheduled time: Billing limit exceeded/);
    expect(sentTo(failed.email)).toHaveLength(0);
    expect(sentTo(sent.email)).toHaveLength(1);
  });

  it('checks the sender domain again at the time: a domain removed meanwhile leaves the email FAILED with the reason, nothing sent', async () => {
    const [email] = (await send({ to: 'domain-gone@example.com', scheduledAt: inAWhile() })).body.data.emails;
    expect(email.status).toBe('SCHEDULED');
    await given.api.dataSource.query('DELETE FROM domains WHERE project_id = $1', [given.projectId]);
    expect(await closed(email.email)).toBe('FAILED');
    expect((await row(email.email)).error).toMatch(/^Not sent at its scheduled time: the sender domain mail\..+ is no longer a verified domain of this project$/);
    expect((await getEmail(email.email)).body.status).toBe('FAILED');
    expect(sentTo(email.email)).toHaveLength(0);
  });

  it('gives a cancelled email\'s slot under the emails cap back', async () => {
    expect((await given.owner.call('PUT', `/users/@me/projects/${given.projectId}/billing-limits`, { body: { emails: 1 } })).status).toBe(200);
    const [email] = (await send({ to: 'slot@example.com', scheduledAt: new Date(Date.now() + 60_000).toISOString() })).body.data.emails;
    expect((await send({ to: 'slot-2@example.com' })).body.error.code).toBe('BILLING_LIMIT_EXCEEDED');
    expect((await given.client.post(`/emails/${email.email}/cancel`, undefined, { key: given.key })).status).toBe(200);
    const [now] = (await send({ to: 'slot-2@example.com' })).body.data.emails;
    expect(await settled(now.email)).toBe('SENT');
  });

  it('refuses a scheduledAt that is past, unparseable, without an offset or more than 30 days ahead with 422 naming it, storing nothing', async () => {
    const day = 24 * 60 * 60 * 1000;
    for (const scheduledAt of [new Date(Date.now() - 60_000).toISOString(), 'tomorrow', '2030-02-30T09:00:00Z', new Date(Date.now() + 60_000).toISOString().slice(0, 19), new Date(Date.now() + 31 * day).toISOString(), 12345]) {
      const answer = await send({ to: 'never@example.com', scheduledAt });
      expect([answer.status, answer.body.error.code, answer.body.error.errors.map((error: { field: string }) => error.field)]).toEqual([422, 'VALIDATION_ERROR', ['scheduledAt']]);
    }
    expect(await given.api.dataSource.query('SELECT 1 FROM emails WHERE project_id = $1', [given.projectId])).toHaveLength(0);
    expect(await given.api.dataSource.query('SELECT 1 FROM contacts WHERE project_id = $1', [given.projectId])).toHaveLength(0);
    const accepted = await send({ to: 'fine@example.com', scheduledAt: new Date(Date.now() + 29 * day).toISOString() });
    expect(accepted.body.data.emails[0].status).toBe('SCHEDULED');
    const now = await send({ to: 'null@example.com', scheduledAt: null });
    expect(now.body.data.emails[0].status).toBe('QUEUED');
    // Not left waiting 29 days on the shared test server.
    expect((await given.client.post(`/emails/${accepted.body.data.emails[0].email}/cancel`, undefined, { key: given.key })).status).toBe(200);
  });

  it("answers 404 for another project's email (GET and cancel, which leaves it SCHEDULED) and for an id that is not a UUID", async () => {
    // Signed up first: the checks of the SCHEDULED email below must all come before its time.
    const other = await projectWithVerifiedDomain(given.api);
    const [email] = (await send({ to: 'mine@example.com', scheduledAt: inAWhile() })).body.data.emails;
    expect((await getEmail(email.email, other.key)).status).toBe(404);
    const cancel = await given.client.post(`/emails/${email.email}/cancel`, undefined, { key: other.key });
    expect([cancel.status, cancel.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await row(email.email)).status).toBe('SCHEDULED');
    expect((await getEmail('not-a-uuid')).status).toBe(404);
    expect((await given.client.post('/emails/not-a-uuid/cancel', undefined, { key: given.key })).status).toBe(404);
    expect((await getEmail('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(await closed(email.email)).toBe('SENT');
  });

  it('answers DELIVERED for an opened email and CANCELLED for a skipped campaign email', async () => {
    const [email] = (await send({ to: 'opened@example.com' })).body.data.emails;
    expect(await settled(email.email)).toBe('SENT');
    await given.api.dataSource.query(`UPDATE emails SET status = 'OPENED' WHERE id = $1`, [email.email]);
    expect((await getEmail(email.email)).body.status).toBe('DELIVERED');
    await given.api.dataSource.query(`UPDATE emails SET status = 'SKIPPED' WHERE id = $1`, [email.email]);
    expect((await getEmail(email.email)).body.status).toBe('CANCELLED');
  });
});
