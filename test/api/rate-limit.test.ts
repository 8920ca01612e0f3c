import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { withinOneMinute } from '../support/wait';

describe('per-project rate limit', () => {
  let first: TestApi;
  let second: TestApi;

  beforeAll(async () => {
    // Two API instances with their own connection pools stand for two API processes.
    first = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '6' } });
    second = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '6' } });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('holds one budget across API processes and answers 429 with Retry-After once spent', async () => {
    const { project } = await signupWithProject(first);
    const a = new Client(first.url);
    const b = new Client(second.url);
    // Align to the start of a window so all requests fall into the same minute.
    await withinOneMinute(5);

    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push(await (i % 2 ? b : a).get('/v1/api-key', { key: project.secretKey }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['5', '4', '3', '2', '1', '0']);
    expect(answers[0].headers.get('ratelimit-limit')).toBe('6');
    const reset = Number(answers[0].headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);

    const limited = await b.get('/v1/api-key', { key: project.secretKey });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await a.get('/v1/api-key', { key: project.secretKey })).status).toBe(429);
  });

  it('keeps each project\'s budget separate', async () => {
    const { project: busy } = await signupWithProject(first);
    const { project: quiet } = await signupWithProject(first);
    const client = new Client(first.url);
    // Align to the start of a window so all requests fall into the same minute.
    await withinOneMinute(5);
    for (let i = 0; i < 7; i += 1) await client.get('/v1/api-key', { key: busy.secretKey });
    expect((await client.get('/v1/api-key', { key: busy.secretKey })).status).toBe(429);
    expect((await client.get('/v1/api-key', { key: quiet.secretKey })).status).toBe(200);
  });

  it('does not count requests with an invalid key against any project', async () => {
    const client = new Client(first.url);
    const answer = await client.get('/v1/api-key', { key: 'sk_unknown' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
  });
});
