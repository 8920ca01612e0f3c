import { contactToken } from '../../src/contacts/links';
import { Client, startApi, uniqueEmail, type TestApi } from '../support/api';

describe('subscription pages', () => {
  let api: TestApi;
  let client: Client;
  let projectId: string;

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
    [{ id: projectId }] = await api.dataSource.query(`INSERT INTO projects (name) VALUES ('Acme <News> & "Co"') RETURNING id`);
  });
  afterAll(() => api.close());

  /** A contact of the project and the token of its page links. */
  async function contact(subscribed = true) {
    const [row] = await api.dataSource.query(
      'INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, $3) RETURNING id, email',
      [projectId, uniqueEmail('reader'), subscribed],
    );
    return { id: row.id as string, email: row.email as string, token: contactToken(api.config, row.id) };
  }

  const form = (path: string, body = '') =>
    client.call('POST', path, { rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const isSubscribed = async (id: string) => (await api.dataSource.query('SELECT subscribed FROM contacts WHERE id = $1', [id]))[0].subscribed;
  const eventNames = async (id: string) =>
    (await api.dataSource.query('SELECT name FROM events WHERE contact_id = $1 ORDER BY created_at', [id])).map((row: { name: string }) => row.name);

  it('shows a confirmation form on GET /unsubscribe and changes nothing', async () => {
    const reader = await contact();
    const page = await client.get(`/unsubscribe/${reader.token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('<form method="post">');
    expect(page.body).toContain(reader.email);
    expect(await isSubscribed(reader.id)).toBe(true);
    expect(await eventNames(reader.id)).toEqual([]);
  });

  it('escapes what it shows', async () => {
    const reader = await contact();
    const page = await client.get(`/unsubscribe/${reader.token}`);
    expect(page.body).toContain('Acme &lt;News&gt; &amp; &quot;Co&quot;');
    expect(page.body).not.toContain('<News>');
  });

  it('unsubscribes on a one-click POST (RFC 8058) and fires contact.unsubscribed once', async () => {
    const reader = await contact();
    const answer = await form(`/unsubscribe/${reader.token}`, 'List-Unsubscribe=One-Click');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.body).toContain('You are unsubscribed');
    expect(await isSubscribed(reader.id)).toBe(false);
    expect((await form(`/unsubscribe/${reader.token}`, 'List-Unsubscribe=One-Click')).status).toBe(200);
    expect(await eventNames(reader.id)).toEqual(['contact.unsubscribed']);
  });

  it('unsubscribes on a POST with an empty body', async () => {
    const reader = await contact();
    const answer = await client.call('POST', `/unsubscribe/${reader.token}`);
    expect(answer.status).toBe(200);
    expect(await isSubscribed(reader.id)).toBe(false);
  });

  it('resubscribes from the subscribe page, and a suppression stays', async () => {
    const reader = await contact(false);
    await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'BOUNCE')`, [projectId, reader.email]);
    const page = await client.get(`/subscribe/${reader.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post">');
    expect(await isSubscribed(reader.id)).toBe(false);

    const answer = await form(`/subscribe/${reader.token}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('You are subscribed');
    expect(answer.body).toContain('bounced or was reported as spam');
    expect(await isSubscribed(reader.id)).toBe(true);
    expect(await eventNames(reader.id)).toEqual(['contact.subscribed']);
    const suppressions = await api.dataSource.query('SELECT reason FROM suppressions WHERE project_id = $1 AND value = $2', [projectId, reader.email]);
    expect(suppressions).toEqual([{ reason: 'BOUNCE' }]);
  });

  it('shows the current state on the manage page and changes it from its form', async () => {
    const reader = await contact();
    const before = await client.get(`/manage/${reader.token}`);
    expect(before.status).toBe(200);
    expect(before.body).toContain('<strong>subscribed</strong>');
    expect(before.body).toContain('name="subscribed" value="false"');

    const saved = await form(`/manage/${reader.token}`, 'subscribed=false');
    expect(saved.status).toBe(200);
    expect(saved.body).toContain('<strong>unsubscribed</strong>');
    expect(await isSubscribed(reader.id)).toBe(false);

    const after = await client.get(`/manage/${reader.token}`);
    expect(after.body).toContain('name="subscribed" value="true"');
    expect(await eventNames(reader.id)).toEqual(['contact.unsubscribed']);
  });

  it('answers 404 with an HTML page to a bad or forged token, and changes nothing', async () => {
    const reader = await contact();
    const forged = `${reader.id}.${'A'.repeat(32)}`;
    for (const token of ['garbage', forged, `not-a-uuid.${reader.token.split('.')[1]}`]) {
      for (const path of [`/unsubscribe/${token}`, `/subscribe/${token}`, `/manage/${token}`]) {
        const page = await client.get(path);
        expect([path, page.status]).toEqual([path, 404]);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(page.body).toContain('This link is not valid');
      }
      expect((await form(`/unsubscribe/${token}`, 'List-Unsubscribe=One-Click')).status).toBe(404);
    }
    expect(await isSubscribed(reader.id)).toBe(true);
  });

  it('answers 404 for a contact that was deleted', async () => {
    const reader = await contact();
    await api.dataSource.query('DELETE FROM contacts WHERE id = $1', [reader.id]);
    expect((await client.get(`/manage/${reader.token}`)).status).toBe(404);
  });
});
