import { Client, signupWithProject, startApi, uniqueEmail, type TestApi } from '../support/api';

const PASSWORD = 'correct horse battery';

async function signup(api: TestApi) {
  const client = new Client(api.url);
  const email = uniqueEmail();
  const answer = await client.post('/auth/signup', { email, password: PASSWORD });
  return { client, email, id: answer.body.id as string };
}

describe('project members', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('adds an existing user as a member and lets them see the project', async () => {
    const { client, project } = await signupWithProject(api);
    const other = await signup(api);
    const added = await client.post(`/projects/${project.id}/members`, { email: other.email });
    expect(added.status).toBe(201);
    expect(added.body.member).toEqual(expect.objectContaining({ userId: other.id, email: other.email, role: 'MEMBER' }));
    const projects = await other.client.get('/users/@me/projects');
    expect(projects.body.map((p: { id: string }) => p.id)).toEqual([project.id]);
    expect(projects.body[0].role).toBe('MEMBER');
    const again = await client.post(`/projects/${project.id}/members`, { email: other.email });
    expect(again.status).toBe(409);
  });

  it('records an invite for an unknown email, mails it and honours it at sign-up', async () => {
    const { client, project } = await signupWithProject(api);
    const email = uniqueEmail('invitee');
    const invited = await client.post(`/projects/${project.id}/members`, { email, role: 'ADMIN' });
    expect(invited.status).toBe(201);
    expect(invited.body.invite).toEqual(expect.objectContaining({ email, role: 'ADMIN' }));
    const mails = await api.dataSource.query('SELECT subject FROM outbox_messages WHERE $1 = ANY("to")', [email]);
    expect(mails).toHaveLength(1);
    const newcomer = new Client(api.url);
    await newcomer.post('/auth/signup', { email, password: PASSWORD });
    const projects = await newcomer.get('/users/@me/projects');
    expect(projects.body).toEqual([expect.objectContaining({ id: project.id, role: 'ADMIN' })]);
    const list = await client.get(`/projects/${project.id}/members`);
    expect(list.body.invites).toEqual([]);
    expect(list.body.members.map((m: { email: string }) => m.email)).toContain(email);
  });

  it('lets only owners and admins manage members', async () => {
    const { client, project } = await signupWithProject(api);
    const member = await signup(api);
    const third = await signup(api);
    await client.post(`/projects/${project.id}/members`, { email: member.email });
    const refused = await member.client.post(`/projects/${project.id}/members`, { email: third.email });
    expect(refused.status).toBe(403);
    const refusedRole = await member.client.patch(`/projects/${project.id}/members/${member.id}`, { role: 'ADMIN' });
    expect(refusedRole.status).toBe(403);
    const list = await client.get(`/projects/${project.id}/members`);
    expect(list.body.members).toHaveLength(2);
  });

  it('never removes or demotes the last owner', async () => {
    const { client, project, user } = await signupWithProject(api);
    const demote = await client.patch(`/projects/${project.id}/members/${user.id}`, { role: 'ADMIN' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('LAST_OWNER');
    const remove = await client.delete(`/projects/${project.id}/members/${user.id}`);
    expect(remove.status).toBe(409);

    const second = await signup(api);
    await client.post(`/projects/${project.id}/members`, { email: second.email, role: 'OWNER' });
    const nowAllowed = await client.patch(`/projects/${project.id}/members/${user.id}`, { role: 'ADMIN' });
    expect(nowAllowed.status).toBe(200);
    expect(nowAllowed.body.role).toBe('ADMIN');
    const roles = await api.dataSource.query('SELECT role FROM project_members WHERE project_id = $1 ORDER BY role', [project.id]);
    expect(roles.map((r: { role: string }) => r.role)).toEqual(['ADMIN', 'OWNER']);
  });

  it('removes a member, who then loses access', async () => {
    const { client, project } = await signupWithProject(api);
    const member = await signup(api);
    await client.post(`/projects/${project.id}/members`, { email: member.email });
    const removed = await client.delete(`/projects/${project.id}/members/${member.id}`);
    expect(removed.status).toBe(200);
    expect((await member.client.get(`/projects/${project.id}/members`)).status).toBe(404);
  });

  it('validates the role', async () => {
    const { client, project } = await signupWithProject(api);
    const answer = await client.post(`/projects/${project.id}/members`, { email: uniqueEmail(), role: 'KING' });
    expect(answer.status).toBe(422);
    expect(answer.body.error.errors[0]).toEqual(expect.objectContaining({ field: 'role', code: 'invalid_enum_value' }));
  });
});
