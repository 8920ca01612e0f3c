import { Client, markEmailVerified, signupWithProject, startApi, uniqueEmail, type TestApi } from '../support/api';

describe('projects and keys', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('creates a project with a pk_/sk_ pair stored only as hashes; the creator is OWNER', async () => {
    const { project } = await signupWithProject(api);
    expect(project).toEqual(expect.objectContaining({
      id: expect.any(String),
      name: 'Test project',
      publicKey: expect.stringMatching(/^pk_[0-9A-Za-z]{32,}$/),
      secretKey: expect.stringMatching(/^sk_[0-9A-Za-z]{32,}$/),
      disabled: false,
      role: 'OWNER',
    }));
    const rows: { key_hash: string; prefix: string }[] = await api.dataSource.query(
      'SELECT key_hash, prefix FROM api_keys WHERE project_id = $1',
      [project.id],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect([project.publicKey, project.secretKey]).not.toContain(row.key_hash);
    }
  });

  it('lists the projects of the user with key prefixes, never the keys', async () => {
    const { client, project } = await signupWithProject(api, 'Listed');
    const list = await client.get('/users/@me/projects');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual(expect.objectContaining({ id: project.id, name: 'Listed', secretKeyPrefix: project.secretKey.slice(0, 10) }));
    expect(list.body[0].secretKey).toBeUndefined();
  });

  it('accepts the secret key on key-authenticated endpoints', async () => {
    const { project } = await signupWithProject(api);
    const answer = await new Client(api.url).get('/v1/api-key', { key: project.secretKey });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { projectId: project.id, projectName: 'Test project', keyKind: 'secret' } });
  });

  it('refuses the public key on a secret-key endpoint with 401 naming the kind needed', async () => {
    const { project } = await signupWithProject(api);
    const answer = await new Client(api.url).get('/v1/api-key', { key: project.publicKey });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('INVALID_API_KEY');
    expect(answer.body.error.message).toMatch(/secret key \(sk_/);
  });

  it('refuses a missing or unknown key with 401 INVALID_API_KEY', async () => {
    const client = new Client(api.url);
    const missing = await client.get('/v1/api-key');
    const unknown = await client.get('/v1/api-key', { key: 'sk_' + 'x'.repeat(40) });
    for (const answer of [missing, unknown]) {
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('answers 403 PROJECT_DISABLED for a disabled project', async () => {
    const { project } = await signupWithProject(api);
    await api.dataSource.query('UPDATE projects SET disabled = true WHERE id = $1', [project.id]);
    const answer = await new Client(api.url).get('/v1/api-key', { key: project.secretKey });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('PROJECT_DISABLED');
  });

  it('regenerates both keys; the old ones fail at once', async () => {
    const { client, project } = await signupWithProject(api);
    const rotated = await client.post(`/users/@me/projects/${project.id}/regenerate-keys`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secretKey).toMatch(/^sk_/);
    expect(rotated.body.publicKey).toMatch(/^pk_/);
    expect(rotated.body.secretKey).not.toBe(project.secretKey);
    expect(rotated.body.publicKey).not.toBe(project.publicKey);
    const caller = new Client(api.url);
    expect((await caller.get('/v1/api-key', { key: project.secretKey })).status).toBe(401);
    expect((await caller.get('/v1/api-key', { key: rotated.body.secretKey })).status).toBe(200);
  });

  it('renames a project and validates the name', async () => {
    const { client, project } = await signupWithProject(api);
    const renamed = await client.patch(`/users/@me/projects/${project.id}`, { name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    const invalid = await client.patch(`/users/@me/projects/${project.id}`, { name: '' });
    expect(invalid.status).toBe(422);
    expect((await client.get(`/users/@me/projects/${project.id}`)).body.name).toBe('Renamed');
  });

  it('hides other users\' projects behind 404', async () => {
    const { project } = await signupWithProject(api);
    const { client: stranger } = await signupWithProject(api);
    for (const answer of [
      await stranger.get(`/users/@me/projects/${project.id}`),
      await stranger.post(`/users/@me/projects/${project.id}/regenerate-keys`),
      await stranger.delete(`/users/@me/projects/${project.id}`),
      await stranger.get(`/projects/${project.id}/members`),
      await stranger.get(`/projects/${project.id}/setup-state`),
      await stranger.get('/users/@me/projects/not-a-uuid'),
    ]) {
      expect(answer.status).toBe(404);
    }
    const [row] = await api.dataSource.query('SELECT id FROM projects WHERE id = $1', [project.id]);
    expect(row).toBeDefined();
  });

  it('resets project data and keeps the project and its keys', async () => {
    const { client, project } = await signupWithProject(api);
    await api.dataSource.query(
      `INSERT INTO idempotency_keys (project_id, key, method, path, status_code, expires_at) VALUES ($1, 'k', 'POST', '/v1/send', 200, now() + interval '1 day')`,
      [project.id],
    );
    const reset = await client.post(`/users/@me/projects/${project.id}/reset`);
    expect(reset.status).toBe(200);
    expect(await api.dataSource.query('SELECT 1 FROM idempotency_keys WHERE project_id = $1', [project.id])).toHaveLength(0);
    expect((await new Client(api.url).get('/v1/api-key', { key: project.secretKey })).status).toBe(200);
  });

  it('deletes a project for its owner only', async () => {
    const { client, project } = await signupWithProject(api);
    const member = new Client(api.url);
    const memberEmail = uniqueEmail();
    await member.post('/auth/signup', { email: memberEmail, password: 'correct horse battery' });
    await markEmailVerified(api, memberEmail);
    await client.post(`/projects/${project.id}/members`, { email: memberEmail, role: 'ADMIN' });
    const refused = await member.delete(`/users/@me/projects/${project.id}`);
    expect(refused.status).toBe(403);
    const deleted = await client.delete(`/users/@me/projects/${project.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expect(await api.dataSource.query('SELECT 1 FROM projects WHERE id = $1', [project.id])).toHaveLength(0);
    expect((await new Client(api.url).get('/v1/api-key', { key: project.secretKey })).status).toBe(401);
  });

  it('reports the onboarding state', async () => {
    const { client, project } = await signupWithProject(api);
    const state = await client.get(`/projects/${project.id}/setup-state`);
    expect(state.status).toBe(200);
    expect(state.body.steps).toEqual(expect.arrayContaining([
      { id: 'project_created', title: expect.any(String), done: true },
      { id: 'team_invited', title: expect.any(String), done: false },
    ]));
    expect(state.body.completed).toBe(false);
    await client.post(`/projects/${project.id}/members`, { email: uniqueEmail() });
    const after = await client.get(`/projects/${project.id}/setup-state`);
    expect(after.body.steps.find((s: { id: string }) => s.id === 'team_invited').done).toBe(true);
  });
});
