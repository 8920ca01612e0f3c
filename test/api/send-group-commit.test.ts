import { emailTag } from '../support/ses-server';
import { useSesProject } from '../support/stack';
import { until } from '../support/wait';

/**
 * Sends that arrive together are stored in one transaction (src/sending/send-writer.ts): each
 * must still be answered, refused and sent as if it were alone.
 */
describe('POST /v1/send, many at once', () => {
  const given = useSesProject('send-group-commit-test');

  const send = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    given.client.post('/v1/send', { subject: 'Hi', body: '<p>Hi</p>', ...body }, { key: given.key, headers });
  const rows = () => given.api.dataSource.query('SELECT id, to_email, status FROM emails WHERE project_id = $1', [given.projectId]) as Promise<{ id: string; to_email: string; status: string }[]>;
  const sentTo = (emailId: string) => given.ses.emails.filter((captured) => emailTag(captured, 'emailId') === emailId);

  it('answers each send alone: the refused ones store nothing, the others are stored and sent once each', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send({ to: `many-${i}@example.com`, from: i % 8 === 3 ? 'hello@not-verified.example' : `hello@mail.${given.domain}` }),
      ),
    );
    const refused = answers.flatMap((answer, i) => (i % 8 === 3 ? [answer] : []));
    const accepted = answers.filter((_, i) => i % 8 !== 3);
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toContain('not-verified.example is not verified');
    }
    for (const answer of accepted) expect(answer.status).toBe(200);
    const ids = accepted.map((answer) => answer.body.data.emails[0].email as string);
    const stored = await until(rows, (found) => found.length === ids.length && found.every((row) => row.status === 'SENT'), 'every accepted email SENT');
    expect(stored.map((row) => row.id).sort()).toEqual([...ids].sort());
    expect(stored.some((row) => row.to_email.startsWith('many-3@'))).toBe(false);
    for (const id of ids) expect(sentTo(id)).toHaveLength(1);
  });

  it('sends once for an Idempotency-Key used by several sends at once, and answers the others 409', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => send({ to: 'once@example.com', from: `hello@mail.${given.domain}` }, { 'Idempotency-Key': 'group-7' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const [{ email }] = answers.find((answer) => answer.status === 200)!.body.data.emails;
    await until(rows, (found) => found.length === 1 && found[0].status === 'SENT', 'the one email SENT');
    expect(sentTo(email)).toHaveLength(1);
  });
});
