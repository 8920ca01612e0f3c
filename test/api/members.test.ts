import { tokenFromOutbox } from '../support/account-mail';
import { Client, markEmailVerified, signupWithProject, startApi, uniqueEmail, type TestApi } from '../support/api';

const PASSWORD = 'correct horse battery';

/** A new account; verified unless told otherwise. */
async function signup(api: TestApi, verified = true) {
  const client = new Client(api.url);
  const email = uniqueEmail();
  const answer = await client.post('/auth/signup', { email, password: PASSWORD });
  if (verified) await markEmailVerified(api, email);
  return { client, email, id: answer.body.id as string };
}

/** Verifies the address the way its owner does: with the token the verification email carries. */
async function verifyByEmailedLink(api: TestApi, client: Client, email: string) {
  const token = await tokenFromOutbox(api, email, '/verify-email');
  expect((await client.post('/auth/verify-email', { token })).status).toBe(200);
}

const projectIds = async (client: Client) => (await client.get('/users/@me/projects')).body.map((p: { id: string }) => p.id);

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

  it('records an invite for an unknown email, mails it and honours it once the new account verifies the address', async () => {
    const { client, project } = await signupWithProject(api);
    const email = uniqueEmail('invitee');
    const invited = await client.post(`/projects/${project.id}/members`, { email, role: 'ADMIN' });
    expect(invited.status).toBe(201);
    expect(invited.body.invite).toEqual(expect.objectContaining({ email, role: 'ADMIN', waitingFor: 'SIGNUP' }));
    expect(invited.body.message).toMatch(/once they sign up and verify their email address/);
    const mails = await api.dataSource.query('SELECT text FROM outbox_messages WHERE $1 = ANY("to")', [email]);
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toMatch(/you join the project once the address is verified/);

    const newcomer = new Client(api.url);
    await newcomer.post('/auth/signup', { email, password: PASSWORD });
    expect(await projectIds(newcomer)).toEqual([]);
    await verifyByEmailedLink(api, newcomer, email);
    const projects = await newcomer.get('/users/@me/projects');
    expect(projects.body).toEqual([expect.objectContaining({ id: project.id, role: 'ADMIN' })]);
    const list = await client.get(`/projects/${project.id}/members`);
    expect(list.body.invites).toEqual([]);
    expect(list.body.members.map((m: { email: string }) => m.email)).toContain(email);
  });

  it('gives nothing of the project to whoever signs up with an invited address until it is verified', async () => {
    const { client, project } = await signupWithProject(api);
    const email = uniqueEmail('victim');
    await client.post(`/projects/${project.id}/members`, { email, role: 'ADMIN' });

    const squatter = new Client(api.url);
    expect((await squatter.post('/auth/signup', { email, password: PASSWORD })).status).toBe(201);
    expect(await projectIds(squatter)).toEqual([]);
    expect((await squatter.get(`/users/@me/projects/${project.id}`)).status).toBe(404);
    expect((await squatter.get(`/projects/${project.id}/members`)).status).toBe(404);
    expect((await squatter.post(`/users/@me/projects/${project.id}/regenerate-keys`)).status).toBe(404);
    expect(await api.dataSource.query('SELECT 1 FROM project_members WHERE project_id = $1', [project.id])).toHaveLength(1);
    const list = await client.get(`/projects/${project.id}/members`);
    expect(list.body.invites).toEqual([expect.objectContaining({ email, role: 'ADMIN', waitingFor: 'VERIFICATION' })]);
  });

  it('records an invite, not a membership, when adding an existing account whose email is not verified', async () => {
    const { client, project } = await signupWithProject(api);
    const unverified = await signup(api, false);
    const added = await client.post(`/projects/${project.id}/members`, { email: unverified.email, role: 'ADMIN' });
    expect(added.status).toBe(201);
    expect(added.body.member).toBeUndefined();
    expect(added.body.invite).toEqual(expect.objectContaining({ email: unverified.email, role: 'ADMIN', waitingFor: 'VERIFICATION' }));
    expect(added.body.message).toMatch(/not verified yet; they become ADMIN once they verify it/);
    expect(await projectIds(unverified.client)).toEqual([]);
    expect((await unverified.client.get(`/projects/${project.id}/members`)).status).toBe(404);

    await verifyByEmailedLink(api, unverified.client, unverified.email);
    expect((await unverified.client.get('/users/@me/projects')).body).toEqual([expect.objectContaining({ id: project.id, role: 'ADMIN' })]);
    expect((await client.get(`/projects/${project.id}/members`)).body.invites).toEqual([]);
  });

  it('lets the owner of an invited address take it back by password reset: the squatter is signed out and the invite applies', async () => {
    const { client, project } = await signupWithProject(api);
    const email = uniqueEmail('owner-of-address');
    await client.post(`/projects/${project.id}/members`, { email });
    const squatter = new Client(api.url);
    await squatter.post('/auth/signup', { email, password: PASSWORD });

    await new Client(api.url).post('/auth/request-password-reset', { email });
    const token = await tokenFromOutbox(api, email, '/reset-password');
    expect((await new Client(api.url).post('/auth/reset-password', { token, password: 'the real owner' })).status).toBe(200);
    expect((await squatter.get('/users/@me')).status).toBe(401);
    expect((await new Client(api.url).post('/auth/login', { email, password: PASSWORD })).status).toBe(401);
    const owner = new Client(api.url);
    const login = await owner.post('/auth/login', { email, password: 'the real owner' });
    expect(login.body.emailVerified).toBe(true);
    expect(await projectIds(owner)).toEqual([project.id]);
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
