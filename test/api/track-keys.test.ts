import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { keyCacheOf } from '../../src/projects/key-cache';
import { until } from '../support/wait';

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

  /**
   * How soon a change committed elsewhere reaches every process (README: within milliseconds of the
   * commit), well under the 3 s a process keeps keys without its probe coming back, and the 10 s
   * it keeps one at most: a process that missed the notification fails this bound.
   */
  const NOTIFIED_MS = 1_000;
  const all = (status: number) => (statuses: number[]) => statuses.every((answer) => answer === status);
  /** Waits until both processes keep the keys they find, and has each find `keys`, so that a change must reach kept keys. */
  const keptInBoth = async (...keys: string[]) => {
    const keeping = async () => keyCacheOf(first.dataSource).keeping() && keyCacheOf(second.dataSource).keeping();
    await until(keeping, Boolean, 'both processes to keep keys', 10_000);
    for (const key of keys) expect(await burst(key)).toEqual([200, 200, 200, 200, 200, 200]);
  };

  it('refuses a rotated key from the next request on in the process that rotated it, in every process once notified, and takes the new one', async () => {
    const { client, project } = await signupWithProject(first);
    const answers: number[] = [];
    const counted = async (key: string) => {
      const statuses = await burst(key);
      answers.push(...statuses);
      return statuses;
    };
    expect(await counted(project.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);
    await keptInBoth(project.publicKey);
    answers.push(200, 200, 200, 200, 200, 200);

    const rotated = await client.post(`/users/@me/projects/${project.id}/regenerate-keys`);
    expect(rotated.status).toBe(200);
    expect((await track(first, project.publicKey)).status).toBe(401);
    expect((await track(first, project.secretKey)).status).toBe(401);
    await until(() => counted(project.publicKey), all(401), 'the old key refused in every process', NOTIFIED_MS);
    expect(await counted(project.secretKey)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await counted(rotated.body.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);

    // Every accepted request stored its event, and no refused one did.
    const [{ count }] = await first.dataSource.query('SELECT count(*)::int AS count FROM events WHERE project_id = $1', [project.id]);
    expect(count).toBe(answers.filter((status) => status === 200).length);
    expect(count).toBeGreaterThanOrEqual(18);
  });

  it('refuses every key of a project disabled or deleted by any statement, in every process once notified', async () => {
    const disabled = await signupWithProject(first);
    const deleted = await signupWithProject(first);
    expect(await burst(disabled.project.publicKey)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await burst(deleted.project.secretKey)).toEqual([200, 200, 200, 200, 200, 200]);
    await keptInBoth(disabled.project.publicKey, deleted.project.secretKey);

    // Statements outside Herald's services: each process learns of them from the notification alone.
    await first.dataSource.query('UPDATE projects SET disabled = true WHERE id = $1', [disabled.project.id]);
    await second.dataSource.query('DELETE FROM projects WHERE id = $1', [deleted.project.id]);
    await until(() => burst(disabled.project.publicKey), all(403), 'the disabled project refused in every process', NOTIFIED_MS);
    await until(() => burst(deleted.project.secretKey), all(401), 'the deleted project refused in every process', NOTIFIED_MS);
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
