import { signupWithProject, type Client } from '../support/api';
import { DnsTestServer } from '../support/dns-server';
import { startTestStack, type TestStack } from '../support/stack';
import { until } from '../support/wait';

interface DomainRecord {
  type: 'CNAME' | 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
}

/** Serves every record of a domain on the loopback DNS server. */
function publish(dns: DnsTestServer, records: DomainRecord[]): void {
  const txt = new Map<string, string[]>();
  for (const r of records) {
    if (r.type === 'CNAME') dns.set(r.name, 'CNAME', [r.value]);
    if (r.type === 'MX') dns.set(r.name, 'MX', [{ priority: r.priority!, exchange: r.value }]);
    if (r.type === 'TXT') txt.set(r.name, [...(txt.get(r.name) ?? []), r.value]);
  }
  for (const [name, values] of txt) dns.set(name, 'TXT', values);
}

describe('GET /projects/{id}/setup-state follows a new project through onboarding', () => {
  let dns: DnsTestServer;
  let stack: TestStack;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    stack = await startTestStack({ DNS_SERVERS: dns.address, TEMPORAL_TASK_QUEUE: 'setup-state-test' });
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
  });

  it('marks each step done once the project really did it', async () => {
    const { client: dashboard, project } = await signupWithProject(stack.api);
    const api: Client = stack.client;
    const key = project.secretKey;
    const done = async () => {
      const answer = await dashboard.get(`/projects/${project.id}/setup-state`);
      expect(answer.status).toBe(200);
      return Object.fromEntries(answer.body.steps.map((step: { id: string; done: boolean }) => [step.id, step.done]));
    };

    expect(await done()).toEqual({
      project_created: true,
      domain_verified: false,
      first_contact: false,
      first_email: false,
      first_campaign: false,
      team_invited: false,
    });

    const domain = `onboarding-${project.id.slice(0, 8)}.test`;
    const added = await api.post('/domains', { domain }, { key });
    expect(added.status).toBe(201);
    expect((await done()).domain_verified).toBe(false);
    publish(dns, added.body.records);
    expect((await api.get(`/domains/${added.body.id}/verify`, { key })).body.status).toBe('VERIFIED');
    expect((await done()).domain_verified).toBe(true);

    expect((await api.post('/contacts', { email: 'first@example.com', subscribed: true }, { key })).status).toBe(201);
    expect((await done()).first_contact).toBe(true);
    expect((await done()).first_email).toBe(false);

    const sent = await api.post('/v1/send', { from: `hello@${domain}`, to: 'first@example.com', subject: 'Hi', body: '<p>Hi</p>' }, { key });
    expect(sent.status).toBe(200);
    await until(done, (steps) => steps.first_email === true, 'the first email to be sent');
    expect((await done()).first_campaign).toBe(false);

    const campaign = await api.post(
      '/campaigns',
      { name: 'Welcome', subject: 'Welcome', body: '<p>Welcome</p>', from: `news@${domain}`, audienceType: 'ALL' },
      { key },
    );
    expect(campaign.status).toBe(201);
    expect((await done()).first_campaign).toBe(false);
    expect((await api.post(`/campaigns/${campaign.body.data.id}/send`, {}, { key })).status).toBe(200);
    expect((await done()).first_campaign).toBe(true);

    await dashboard.post(`/projects/${project.id}/members`, { email: `mate-${project.id.slice(0, 8)}@example.com` });
    const last = await dashboard.get(`/projects/${project.id}/setup-state`);
    expect(last.body.completed).toBe(true);
    expect(last.body.steps.every((step: { done: boolean }) => step.done)).toBe(true);
  });
});
