import { SesHerald } from '../support/ses-herald';
import { until } from '../support/wait';

/** Requests sent at once, each to a recipient of its own. */
const CONNECTIONS = 20;
/** Emails answered 200 before every process is killed. */
const BEFORE_KILL = 300;
const DOMAIN = 'send-kill.example.com';

/**
 * `npm start` on a DATA_DIR of its own: the send queue is committed before `/v1/send` answers, so a
 * SIGKILL of every process leaves answered emails QUEUED (or held by a send lane that died) for
 * the lanes of the next `npm start` to deliver.
 */
describe('POST /v1/send when every Herald process is SIGKILLed under load', () => {
  let herald: SesHerald;

  beforeAll(async () => {
    herald = await SesHerald.create('send-kill', 5);
    await herald.start();
  });
  afterAll(() => herald?.close());

  it('delivers every email answered 200 after npm start on the same data, sending again only what was in flight', async () => {
    const { project, key, client } = await herald.projectWithDomain('Send kill', DOMAIN);
    const answered = new Set<string>();
    let next = 0;
    let killed = false;
    const senders = Array.from({ length: CONNECTIONS }, async () => {
      while (!killed) {
        const i = next++;
        const answer = await client
          .post('/v1/send', { from: `hello@${DOMAIN}`, to: `kill-${i}@example.com`, subject: 'Receipt', body: `<p>Order ${i}</p>` }, { key })
          .catch(() => undefined);
        if (answer?.status === 200) for (const { email } of answer.body.data.emails) answered.add(email);
      }
    });
    await until(async () => answered.size, (n) => n >= BEFORE_KILL, `${BEFORE_KILL} answered sends`, 120_000);
    await herald.disconnect();
    await herald.herald!.killAll();
    killed = true;
    await Promise.all(senders);

    await herald.start();
    // What SES took from the dead run without Herald recording it: those may go out twice.
    await until(async () => herald.ses.inFlight, (n) => n === 0, 'SES to answer the dead run');
    const queued: { id: string }[] = (await herald.db.query(`SELECT id FROM emails WHERE project_id = $1 AND status = 'QUEUED'`, [project.id])).rows;
    const inFlight = queued.filter(({ id }) => herald.messagesPerEmail(project.id).has(id)).length;

    const delivered = await until(
      async () => herald.messagesPerEmail(project.id),
      (perEmail) => [...answered].every((id) => perEmail.has(id)),
      'every answered email at SES',
      120_000,
    );
    const duplicates = [...delivered.values()].reduce((sum, n) => sum + n - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(inFlight);
    const statuses = async () =>
      (await herald.db.query(`SELECT status, count(*)::int AS n FROM emails WHERE project_id = $1 AND id = ANY($2::uuid[]) GROUP BY status`, [project.id, [...answered]]))
        .rows as { status: string; n: number }[];
    // The records trail SES's copies by a transaction.
    expect(await until(statuses, (rows) => rows.length === 1 && rows[0].status === 'SENT', 'every answered email SENT')).toEqual([{ status: 'SENT', n: answered.size }]);
  });
});
