import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

/** Each endpoint states its credential in its route table; these check the order in which a request meets them. */
describe('the permission each route states', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it("answers 404 to a signed-in non-member of the project before looking at the body, whatever the body holds", async () => {
    const { project } = await signupWithProject(api, 'Owned');
    const { client: stranger } = await signupWithProject(api, 'Other');
    for (const body of [{ name: 42 }, { name: 'Taken over' }]) {
      const answer = await stranger.patch(`/users/@me/projects/${project.id}`, body);
      expect([answer.status, answer.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    }
    const limits = await stranger.call('PUT', `/projects/${project.id}/billing-limits`, { body: { emails: 'many' } });
    expect(limits.status).toBe(404);
    const [row] = await api.dataSource.query('SELECT name FROM projects WHERE id = $1', [project.id]);
    expect(row.name).toBe('Owned');
  });

  it('validates the body of a member, after the membership check', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.patch(`/users/@me/projects/${project.id}`, { name: 42 });
    expect(answer.status).toBe(422);
  });

  it('reads a JSON body on the CSV import as on every keyed route: malformed is a 400, and nothing is queued', async () => {
    const { project } = await signupWithProject(api);
    const answer = await new Client(api.url).call('POST', '/contacts/import', { key: project.secretKey, rawBody: '{"file": ' });
    expect([answer.status, answer.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    const [{ count }] = await api.dataSource.query('SELECT count(*)::int AS count FROM jobs WHERE project_id = $1', [project.id]);
    expect(count).toBe(0);
  });

  it('authenticates a key route before reading its body: a bad key with a malformed body is a 401', async () => {
    const answer = await new Client(api.url).call('POST', '/contacts', { key: 'sk_' + 'x'.repeat(40), rawBody: '{"email": ' });
    expect([answer.status, answer.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });
});
