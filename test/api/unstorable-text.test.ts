import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

/** Strings Postgres cannot store (a lone UTF-16 surrogate, which JSON may escape as `\ud800`) are refused at the edge, never reaching a shared write. */
describe('lone surrogates in JSON bodies', () => {
  let api: TestApi;
  let client: Client;

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());

  it("refuses them with 422 writing nothing, and another project's concurrent track requests are stored", async () => {
    const bad = (await signupWithProject(api)).project;
    const other = (await signupWithProject(api)).project;
    const badBodies = [
      { email: 'bad@example.com', event: 'signed\ud800up' },
      { email: 'bad@example.com', event: 'signed_up', data: { plan: 'pro\udc00' } },
      { email: 'bad@example.com', event: 'signed_up', data: { ['pl\ud83dan']: 1 } },
    ];
    for (let round = 0; round < 5; round += 1) {
      const answers = await Promise.all([
        ...badBodies.map((body) => client.post('/v1/track', body, { key: bad.secretKey })),
        ...Array.from({ length: 5 }, (_, i) => client.post('/v1/track', { email: `ok-${i}@example.com`, event: 'fine \ud83d\ude00' }, { key: other.secretKey })),
      ]);
      expect(answers.slice(badBodies.length).map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      for (const answer of answers.slice(0, badBodies.length)) {
        expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status: 422, code: 'VALIDATION_ERROR' });
      }
      expect(answers[0].body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'invalid_string' })]);
      expect(answers[1].body.error.errors[0].field).toBe('data.plan');
    }
    const count = async (projectId: string) =>
      (await api.dataSource.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]))[0].n as number;
    expect(await count(bad.id)).toBe(0);
    expect(await count(other.id)).toBe(25);
    const names: { name: string }[] = await api.dataSource.query('SELECT DISTINCT name FROM events WHERE project_id = $1', [other.id]);
    expect(names).toEqual([{ name: 'fine \ud83d\ude00' }]);
  });
});
