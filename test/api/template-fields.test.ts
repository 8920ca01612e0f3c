import { Client, projectWithVerifiedDomain, startApi, type TestApi } from '../support/api';

/**
 * The templates endpoints:
 * - a body reaches the service with the template fields only (name, description, subject,
 *   body, from, fromName, replyTo, type); any other key is dropped;
 * - `GET /templates` trims `type`, `search`, `sort` and `dir` before using them.
 */
describe('templates: which body fields and query values count', () => {
  let api: TestApi;
  let client: Client;

  const projectWithDomain = async () => {
    const { key, project, domain } = await projectWithVerifiedDomain(api);
    return { key, projectId: project.id as string, domain };
  };

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());

  it('PATCH /templates/{id} ignores createdAt in the body', async () => {
    const { key, domain } = await projectWithDomain();
    const created = await client.post('/templates', { name: 'Alpha', from: `a@${domain}` }, { key });
    expect(created.status).toBe(201);
    const patched = await client.patch(`/templates/${created.body.id}`, { subject: 'x', createdAt: '2000-01-01T00:00:00.000Z' }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body.createdAt).toBe(created.body.createdAt);
    expect((await client.get(`/templates/${created.body.id}`, { key })).body.createdAt).toBe(created.body.createdAt);
  });

  it('PATCH /templates/{id} ignores projectId in the body', async () => {
    const mine = await projectWithDomain();
    const other = await projectWithDomain();
    const created = await client.post('/templates', { name: 'Alpha', from: `a@${mine.domain}` }, { key: mine.key });
    const patched = await client.patch(`/templates/${created.body.id}`, { projectId: other.projectId }, { key: mine.key });
    expect(patched.status).toBe(200);
    expect(patched.body.projectId).toBe(mine.projectId);
    const read = await client.get(`/templates/${created.body.id}`, { key: mine.key });
    expect(read.status).toBe(200);
    expect(read.body.projectId).toBe(mine.projectId);
  });

  it('GET /templates trims search, type, sort and dir', async () => {
    const { key, domain } = await projectWithDomain();
    await client.post('/templates', { name: 'Alpha', from: `a@${domain}`, type: 'MARKETING' }, { key });
    await client.post('/templates', { name: 'Beta', from: `b@${domain}`, type: 'TRANSACTIONAL' }, { key });
    const names = async (query: string) => ((await client.get(`/templates?${query}`, { key })).body.data as { name: string }[]).map((t) => t.name);

    expect(await names('search=%20Alpha%20')).toEqual(['Alpha']);
    expect(await names('type=%20transactional%20')).toEqual(['Beta']);
    expect(await names('sort=name%20&dir=asc%20')).toEqual(['Alpha', 'Beta']);
  });
});
