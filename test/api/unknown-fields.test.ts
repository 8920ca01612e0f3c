import { IsString } from 'class-validator';
import { parseBody } from '../../src/http/validate';
import { Client, projectWithVerifiedDomain, startApi, type TestApi } from '../support/api';

/**
 * A body field a DTO does not declare never reaches a stored row: `parseBody` keeps only the
 * declared properties, so `projectId` or `id` in a PATCH body cannot move or overwrite a
 * template across projects.
 */
describe('fields a body DTO does not declare', () => {
  let api: TestApi;
  let client: Client;

  const projectWithDomain = async () => {
    const { key, project, domain } = await projectWithVerifiedDomain(api);
    return { key, projectId: project.id as string, domain };
  };
  const templatesOf = async (projectId: string) =>
    (await api.dataSource.query('SELECT id, name, subject FROM templates WHERE project_id = $1 ORDER BY name', [projectId])) as {
      id: string;
      name: string;
      subject: string;
    }[];

  beforeAll(async () => {
    api = await startApi();
    client = new Client(api.url);
  });
  afterAll(() => api.close());

  it('does not move a template into another project when the body names its projectId', async () => {
    const attacker = await projectWithDomain();
    const victim = await projectWithDomain();
    const created = await client.post('/templates', { name: 'Planted', subject: 'Reset your password', body: '<a href="https://evil.test">x</a>', from: `a@${attacker.domain}` }, { key: attacker.key });
    expect(created.status).toBe(201);

    const patched = await client.patch(`/templates/${created.body.id}`, { projectId: victim.projectId }, { key: attacker.key });
    expect([patched.status, patched.body.projectId]).toEqual([200, attacker.projectId]);
    expect(await templatesOf(victim.projectId)).toEqual([]);
    expect((await templatesOf(attacker.projectId)).map((t) => t.id)).toEqual([created.body.id]);
  });

  it("does not overwrite or take another project's template when the body names its id", async () => {
    const attacker = await projectWithDomain();
    const victim = await projectWithDomain();
    const victimTemplate = await client.post('/templates', { name: 'Victim', subject: 'Hello', body: 'hi', from: `v@${victim.domain}` }, { key: victim.key });
    expect(victimTemplate.status).toBe(201);
    const own = await client.post('/templates', { name: 'Mine', subject: 'Mine', body: 'mine', from: `a@${attacker.domain}` }, { key: attacker.key });

    const patched = await client.patch(`/templates/${own.body.id}`, { id: victimTemplate.body.id, name: 'Renamed' }, { key: attacker.key });
    expect([patched.status, patched.body.id, patched.body.name]).toEqual([200, own.body.id, 'Renamed']);

    expect(await templatesOf(victim.projectId)).toEqual([{ id: victimTemplate.body.id, name: 'Victim', subject: 'Hello' }]);
  });

  it('drops undeclared fields of every DTO-validated body before the service sees them', () => {
    class Probe {
      @IsString() name!: string;
    }
    expect(parseBody(Probe, { name: 'x', projectId: 'p', id: 'i', __proto__: { polluted: true } })).toEqual(Object.assign(new Probe(), { name: 'x' }));
  });
});
