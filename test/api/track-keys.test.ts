import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

describe('POST /v1/track keys across API processes', () => {
  let first: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    // Two APIs on one database, as two API processes behind a load balancer.
    [first, second] = await Promise.all([startApi(), startApi()]);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  const track = (api: TestApi, key: string, event = 'visited') => new Client(api.url).post('/v1/track', { email: 'keys@example.com', event }, { key });
  /** Tracks through both APIs at once, several requests each, so they share lookups; answers every status. */
  const burst = async (key: string) =>
    (await Promise.all([first, second, first, second, first, second].map((api, i) => track(api, key, `burst-${i}`)))).map((answer) => answer.status);

  it('refuses a rotated key from the next request on, in every process, and takes the new one', async () => {
    const { client, project } = await signupWithProject(first);
    expect(await burst(project.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);

    const rotated = await client.post(`/users/@me/projects/${project.id}/regenerate-keys`);
    expect(rotated.status).toBe(200);
    expect(await burst(project.publicKey)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await burst(project.secretKey)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await burst(rotated.body.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);

    const [{ count }] = await first.dataSource.query('SELECT count(*)::int AS count FROM events WHERE project_id = $1', [project.id]);
    expect(count).toBe(12);
  });

  it('refuses every key of a project disabled or deleted meanwhile, in every process', async () => {
    const disabled = await signupWithProject(first);
    const deleted = await signupWithProject(first);
    expect(await burst(disabled.project.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await burst(deleted.project.secretKey)).toEqual([200, 200, 200, 200, 200, 200]);

    await first.dataSource.query('UPDATE projects SET disabled = true WHERE id = $1', [disabled.project.id]);
    await second.dataSource.query('DELETE FROM projects WHERE id = $1', [deleted.project.id]);
    expect(await burst(disabled.project.publicKey)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(await burst(deleted.project.secretKey)).toEqual([401, 401, 401, 401, 401, 401]);
  });

  it('answers each key of a shared lookup for itself', async () => {
    const one = await signupWithProject(first);
    const other = await signupWithProject(first);
    const answers = await Promise.all([one.project.publicKey, 'pk_not-a-key', other.project.secretKey, one.project.secretKey].map((key) => track(first, key)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 200, 200]);
    const owners: { project_id: string }[] = await first.dataSource.query(
      'SELECT project_id FROM events WHERE id = ANY($1::uuid[])',
      [[answers[0], answers[2], answers[3]].map((answer) => answer.body.data.event)],
    );
    expect(owners.map((row) => row.project_id).sort()).toEqual([one.project.id, other.project.id, one.project.id].sort());
  });
});
