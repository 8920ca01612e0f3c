import { signupWithProject, startApi, type TestApi } from '../support/api';
import { withinOneMinute } from '../support/wait';

/**
 * Every key-authenticated endpoint counts against one per-project limiter, so
 * `RateLimit-Remaining` goes down by one with each request of a project, whichever endpoint it calls.
 */
describe('RateLimit-Remaining across endpoints', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('goes down by one per request when a project alternates endpoints', async () => {
    const { client, project } = await signupWithProject(api);
    const key = project.secretKey as string;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The limit counts per clock minute: all requests must fall into one.
    await withinOneMinute(5);
    const remaining: number[] = [];
    for (const path of ['/contacts', '/templates', '/contacts', '/segments', '/contacts']) {
      const answer = await client.get(path, { key });
      expect(answer.status).toBe(200);
      remaining.push(Number(answer.headers.get('ratelimit-remaining')));
    }
    const steps = remaining.slice(1).map((value, i) => remaining[i] - value);
    expect(steps).toEqual([1, 1, 1, 1]);
  });
});
