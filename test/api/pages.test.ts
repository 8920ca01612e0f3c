import { createHmac } from 'node:crypto';
import { contactLinks, contactToken, LEGACY_UNSUBSCRIBE_UNTIL, readContactToken, type LinkPurpose } from '../../src/contacts/links';
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

  /** A contact of the project and the tokens of its page links. */
  async function contact(subscribed = true) {
    const [row] = await api.dataSource.query(
      'INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, $3) RETURNING id, email',
      [projectId, uniqueEmail('reader'), subscribed],
    );
    const token = (purpose: LinkPurpose) => contactToken(api.config, purpose, row.id);
    return { id: row.id as string, email: row.email as string, tokens: { unsubscribe: token('unsubscribe'), subscribe: token('subscribe'), manage: token('manage') } };
  }

  const form = (path: string, body = '') =>
    client.call('POST', path, { rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const isSubscribed = async (id: string) => (await api.dataSource.query('SELECT subscribed FROM contacts WHERE id = $1', [id]))[0].subscribed;
  const eventNames = async (id: string) =>
    (await api.dataSource.query('SELECT name FROM events WHERE contact_id = $1 ORDER BY created_at', [id])).map((row: { name: string }) => row.name);

  it('shows a confirmation form on GET /unsubscribe and changes nothing', async () => {
    const reader = await contact();
    const page = await client.get(`/unsubscribe/${reader.tokens.unsubscribe}`);
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
    const page = await client.get(`/unsubscribe/${reader.tokens.unsubscribe}`);
    expect(page.body).toContain('Acme &lt;News&gt; &amp; &quot;Co&quot;');
    expect(page.body).not.toContain('<News>');
  });

  it('unsubscribes on a one-click POST (RFC 8058) and fires contact.unsubscribed once', async () => {
    const reader = await contact();
    const answer = await form(`/unsubscribe/${reader.tokens.unsubscribe}`, 'List-Unsubscribe=One-Click');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.body).toContain('You are unsubscribed');
    expect(await isSubscribed(reader.id)).toBe(false);
    expect((await form(`/unsubscribe/${reader.tokens.unsubscribe}`, 'List-Unsubscribe=One-Click')).status).toBe(200);
    expect(await eventNames(reader.id)).toEqual(['contact.unsubscribed']);
  });

  it('unsubscribes on a POST with an empty body', async () => {
    const reader = await contact();
    const answer = await client.call('POST', `/unsubscribe/${reader.tokens.unsubscribe}`);
    expect(answer.status).toBe(200);
    expect(await isSubscribed(reader.id)).toBe(false);
  });

  it('resubscribes from the subscribe page, and a suppression stays', async () => {
    const reader = await contact(false);
    await api.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'BOUNCE')`, [projectId, reader.email]);
    const page = await client.get(`/subscribe/${reader.tokens.subscribe}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post">');
    expect(await isSubscribed(reader.id)).toBe(false);

    const answer = await form(`/subscribe/${reader.tokens.subscribe}`);
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
    const before = await client.get(`/manage/${reader.tokens.manage}`);
    expect(before.status).toBe(200);
    expect(before.body).toContain('<strong>subscribed</strong>');
    expect(before.body).toContain('name="subscribed" value="false"');

    const saved = await form(`/manage/${reader.tokens.manage}`, 'subscribed=false');
    expect(saved.status).toBe(200);
    expect(saved.body).toContain('<strong>unsubscribed</strong>');
    expect(await isSubscribed(reader.id)).toBe(false);

    const after = await client.get(`/manage/${reader.tokens.manage}`);
    expect(after.body).toContain('name="subscribed" value="true"');
    expect(await eventNames(reader.id)).toEqual(['contact.unsubscribed']);
  });

  it('answers 404 with an HTML page to a bad or forged token, and changes nothing', async () => {
    const reader = await contact();
    const forged = `${reader.id}.${'A'.repeat(32)}`;
    const [prefix, id, expiry] = reader.tokens.manage.split('.');
    const prolonged = [prefix, id, (parseInt(expiry, 36) + 86_400).toString(36), reader.tokens.manage.split('.')[3]].join('.');
    for (const token of ['garbage', forged, `not-a-uuid.${reader.tokens.unsubscribe.split('.')[3]}`, prolonged]) {
      for (const path of [`/unsubscribe/${token}`, `/subscribe/${token}`, `/manage/${token}`]) {
        const page = await client.get(path);
        expect([path, page.status]).toEqual([path, 404]);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(page.body).toContain('This link has expired or is not valid');
      }
      expect((await form(`/unsubscribe/${token}`, 'List-Unsubscribe=One-Click')).status).toBe(404);
    }
    expect(await isSubscribed(reader.id)).toBe(true);
  });

  it('opens each page only with a token of its own purpose, and changes nothing with another', async () => {
    const reader = await contact(false);
    const purposes: LinkPurpose[] = ['unsubscribe', 'subscribe', 'manage'];
    for (const page of purposes) {
      for (const other of purposes.filter((purpose) => purpose !== page)) {
        const shown = await client.get(`/${page}/${reader.tokens[other]}`);
        expect([page, other, shown.status]).toEqual([page, other, 404]);
        expect(shown.body).toContain('This link has expired or is not valid');
        expect((await form(`/${page}/${reader.tokens[other]}`, 'subscribed=true')).status).toBe(404);
      }
    }
    expect(await isSubscribed(reader.id)).toBe(false);
    expect(await eventNames(reader.id)).toEqual([]);
  });

  it('answers 410 with the expired page to a token past its expiry, and changes nothing', async () => {
    const reader = await contact();
    const yesterday = new Date(Date.now() - 86_400_000);
    for (const purpose of ['unsubscribe', 'subscribe', 'manage'] as const) {
      const token = contactToken(api.config, purpose, reader.id, yesterday);
      const page = await client.get(`/${purpose}/${token}`);
      expect([purpose, page.status]).toEqual([purpose, 410]);
      expect(page.body).toContain('This link has expired or is not valid');
      expect(page.body).toContain('Use the link in a more recent email');
      expect((await form(`/${purpose}/${token}`, 'subscribed=false')).status).toBe(410);
    }
    expect(await isSubscribed(reader.id)).toBe(true);
  });

  it('gives the links in emails a year to unsubscribe and 90 days to subscribe or manage', async () => {
    const reader = await contact();
    const links = contactLinks(api.config, reader.id);
    const daysLeft = (purpose: LinkPurpose, url: string) => {
      const read = readContactToken(api.config, purpose, url.split('/').pop()!);
      return 'expiresAt' in read ? Math.round((read.expiresAt.getTime() - Date.now()) / 86_400_000) : read.refused;
    };
    expect([daysLeft('unsubscribe', links.unsubscribeUrl), daysLeft('subscribe', links.subscribeUrl), daysLeft('manage', links.manageUrl)]).toEqual([365, 90, 90]);
    expect((await client.get(new URL(links.manageUrl).pathname)).status).toBe(200);
  });

  it('still unsubscribes with a link of the first format (mail sent before purposes) until 2027-12-01, and opens nothing else with it', async () => {
    const reader = await contact();
    const signature = createHmac('sha256', api.config.tokenSecret).update(`contact:${reader.id}`).digest('base64url').slice(0, 32);
    const legacy = `${reader.id}.${signature}`;
    expect((await client.get(`/subscribe/${legacy}`)).status).toBe(410);
    expect((await client.get(`/manage/${legacy}`)).status).toBe(410);
    expect((await client.get(`/unsubscribe/${legacy}`)).status).toBe(200);
    expect((await form(`/unsubscribe/${legacy}`, 'List-Unsubscribe=One-Click')).body).toContain('You are unsubscribed');
    expect(await isSubscribed(reader.id)).toBe(false);
    expect(readContactToken(api.config, 'unsubscribe', legacy, new Date('2027-11-30T23:59:59Z'))).toEqual({ contactId: reader.id, expiresAt: LEGACY_UNSUBSCRIBE_UNTIL });
    expect(readContactToken(api.config, 'unsubscribe', legacy, LEGACY_UNSUBSCRIBE_UNTIL)).toEqual({ refused: 'expired' });
  });

  it('links subscribe pages to the manage page with a manage token, and unsubscribe pages to none', async () => {
    const reader = await contact();
    const page = await client.get(`/subscribe/${reader.tokens.subscribe}`);
    const manageToken = /href="\.\.\/manage\/([^"]+)"/.exec(page.body)?.[1];
    expect(manageToken).toBeDefined();
    expect(manageToken!.startsWith('m.')).toBe(true);
    expect((await client.get(`/manage/${decodeURIComponent(manageToken!)}`)).body).toContain('<strong>subscribed</strong>');
    const unsubscribed = await form(`/unsubscribe/${reader.tokens.unsubscribe}`);
    expect(unsubscribed.body).toContain('You are unsubscribed');
    expect(unsubscribed.body).not.toContain('../manage/');
  });

  it('answers 404 for a contact that was deleted', async () => {
    const reader = await contact();
    await api.dataSource.query('DELETE FROM contacts WHERE id = $1', [reader.id]);
    expect((await client.get(`/manage/${reader.tokens.manage}`)).status).toBe(404);
  });
});
