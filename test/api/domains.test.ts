import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { DataSource } from 'typeorm';
import { assertVerifiedSender } from '../../src/domains/sender-check';
import { errorHandler } from '../../src/http/middleware/error-handler';
import { requestId } from '../../src/http/middleware/request-id';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { DnsTestServer } from '../support/dns-server';
import { SesServer } from '../support/ses-server';

interface Keys {
  id: string;
  secretKey: string;
  publicKey: string;
}

interface DomainRecord {
  type: 'CNAME' | 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  status: 'PENDING' | 'VERIFIED';
}

let counter = 0;

/** A domain no other test (of any file, on the shared database) has claimed. */
function uniqueDomain(prefix = 'd'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}.test`;
}

const record = (records: DomainRecord[], type: string, name: string) => {
  const found = records.find((r) => r.type === type && r.name === name);
  if (!found) throw new Error(`no ${type} ${name} in ${JSON.stringify(records)}`);
  return found;
};

/** Serves the domain's records on the loopback DNS, all or only those `keep` accepts. */
function publish(dns: DnsTestServer, records: DomainRecord[], keep: (r: DomainRecord) => boolean = () => true): void {
  const txt = new Map<string, string[]>();
  for (const r of records.filter(keep)) {
    if (r.type === 'CNAME') dns.set(r.name, 'CNAME', [r.value]);
    if (r.type === 'MX') dns.set(r.name, 'MX', [{ priority: r.priority!, exchange: r.value }]);
    if (r.type === 'TXT') txt.set(r.name, [...(txt.get(r.name) ?? []), r.value]);
  }
  for (const [name, values] of txt) dns.set(name, 'TXT', values);
}

/** Runs `assertVerifiedSender` behind the real error middleware, so its refusal is seen as clients see it. */
async function startSenderCheck(dataSource: DataSource): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(requestId);
  app.get('/check', async (req, res) => {
    await assertVerifiedSender(dataSource.manager, String(req.query.project), String(req.query.from));
    res.json({ ok: true });
  });
  app.use(errorHandler);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('domains (outbox transport: verification TXT)', () => {
  let dns: DnsTestServer;
  let api: TestApi;
  let client: Client;
  let project: Keys;
  let other: Keys;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    api = await startApi({ env: { DNS_SERVERS: dns.address } });
    expect(api.config.transport).toBe('outbox');
    client = new Client(api.url);
    project = (await signupWithProject(api)).project;
    other = (await signupWithProject(api, 'Other project')).project;
  });
  afterEach(() => dns.clear());
  afterAll(async () => {
    await api.close();
    await dns.close();
  });

  const add = (domain: unknown, key = project.secretKey) => client.post('/domains', { domain }, { key });
  const verify = (id: string, key = project.secretKey) => client.get(`/domains/${id}/verify`, { key });

  it('adds a domain, lower-cased, with its verification TXT, MAIL FROM MX and SPF, and DMARC records', async () => {
    const domain = uniqueDomain('Acme');
    const answer = await add(`  ${domain.toUpperCase()}. `);

    expect(answer.status).toBe(201);
    const name = domain.toLowerCase();
    expect(answer.body).toEqual({
      id: expect.any(String),
      domain: name,
      status: 'PENDING',
      records: [
        { type: 'TXT', name: `_herald.${name}`, value: expect.stringMatching(/^herald-verification=[0-9a-f]{32}$/), status: 'PENDING' },
        { type: 'MX', name: `mail.${name}`, value: 'feedback-smtp.us-east-1.amazonses.com', priority: 10, status: 'PENDING' },
        { type: 'TXT', name: `mail.${name}`, value: 'v=spf1 include:amazonses.com ~all', status: 'PENDING' },
        { type: 'TXT', name: `_dmarc.${name}`, value: 'v=DMARC1; p=none;', status: 'PENDING' },
      ],
      createdAt: expect.any(String),
      verifiedAt: null,
    });
  });

  it('refuses what is not a hostname with 422, and a public key with 401', async () => {
    for (const bad of ['not a domain', '192.168.1.20', 'localhost', '-lead.example.com', 'a..b.com', 'under_score.com', '', 42]) {
      const answer = await add(bad);
      expect([bad, answer.status, answer.body.error?.code]).toEqual([bad, 422, 'VALIDATION_ERROR']);
      expect(answer.body.error.errors[0].field).toBe('domain');
    }
    expect((await client.post('/domains', {}, { key: project.secretKey })).status).toBe(422);
    const publicKey = await add(uniqueDomain(), project.publicKey);
    expect([publicKey.status, publicKey.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('stays PENDING while nothing is published, then VERIFIED once the required records are, DMARC aside', async () => {
    const { body: added } = await add(uniqueDomain());

    const nothing = await verify(added.id);
    expect(nothing.status).toBe(200);
    expect(nothing.body.status).toBe('PENDING');
    expect(nothing.body.verifiedAt).toBeNull();
    expect(nothing.body.records.map((r: DomainRecord) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING']);

    // The owner's own SPF policy counts when it includes amazonses.com; DMARC is left out.
    publish(dns, added.records, (r) => !r.name.startsWith('_dmarc.') && !r.value.startsWith('v=spf1'));
    dns.set(`mail.${added.domain}`, 'TXT', ['v=spf1 include:_spf.example.net include:amazonses.com -all']);
    const before = Date.now();
    const verified = await verify(added.id);

    expect(verified.body.status).toBe('VERIFIED');
    expect(Date.parse(verified.body.verifiedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(verified.body.records.map((r: DomainRecord) => r.status)).toEqual(['VERIFIED', 'VERIFIED', 'VERIFIED', 'PENDING']);
    const listed = await client.get(`/domains/project/${project.id}`, { key: project.secretKey });
    expect(listed.body.find((d: { id: string }) => d.id === added.id)).toEqual(verified.body);
  });

  it('keeps a verified domain VERIFIED when MAIL FROM records go, and puts it back to PENDING when its TXT goes', async () => {
    const { body: added } = await add(uniqueDomain());
    publish(dns, added.records);
    const verified = await verify(added.id);
    expect(verified.body.status).toBe('VERIFIED');
    expect(verified.body.records.every((r: DomainRecord) => r.status === 'VERIFIED')).toBe(true);

    dns.remove(`mail.${added.domain}`);
    const partly = await verify(added.id);
    expect(partly.body.status).toBe('VERIFIED');
    expect(partly.body.verifiedAt).toBe(verified.body.verifiedAt);
    expect(record(partly.body.records, 'MX', `mail.${added.domain}`).status).toBe('PENDING');
    expect(record(partly.body.records, 'TXT', `mail.${added.domain}`).status).toBe('PENDING');

    dns.remove(`_herald.${added.domain}`);
    const lost = await verify(added.id);
    expect(lost.body).toMatchObject({ status: 'PENDING', verifiedAt: null });

    publish(dns, added.records);
    const again = await verify(added.id);
    expect(again.body.status).toBe('VERIFIED');
    expect(Date.parse(again.body.verifiedAt)).toBeGreaterThan(Date.parse(verified.body.verifiedAt));
  });

  it('does not count a verification TXT with another token', async () => {
    const { body: added } = await add(uniqueDomain());
    publish(dns, added.records);
    dns.set(`_herald.${added.domain}`, 'TXT', ['herald-verification=0123456789abcdef0123456789abcdef']);
    const answer = await verify(added.id);
    expect(answer.body.status).toBe('PENDING');
    expect(record(answer.body.records, 'TXT', `_herald.${added.domain}`).status).toBe('PENDING');
  });

  it('refuses with 409 DOMAIN_TAKEN a domain any project already has, whatever its case', async () => {
    const domain = uniqueDomain();
    expect((await add(domain)).status).toBe(201);

    const taken = await add(domain.toUpperCase(), other.secretKey);
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'DOMAIN_TAKEN', statusCode: 409 });
    expect(taken.body.error.message).toContain(domain);
    expect((await add(domain)).body.error.code).toBe('DOMAIN_TAKEN');
    const otherList = await client.get(`/domains/project/${other.id}`, { key: other.secretKey });
    expect(otherList.body.map((d: { domain: string }) => d.domain)).not.toContain(domain);
  });

  it("lists a project's domains, newest first, and answers 403 for any other project id", async () => {
    const fresh = (await signupWithProject(api)).project as Keys;
    const first = (await add(uniqueDomain(), fresh.secretKey)).body;
    const second = (await add(uniqueDomain(), fresh.secretKey)).body;

    const listed = await client.get(`/domains/project/${fresh.id}`, { key: fresh.secretKey });
    expect(listed.status).toBe(200);
    expect(listed.body.map((d: { id: string }) => d.id)).toEqual([second.id, first.id]);

    for (const projectId of [project.id, 'not-a-uuid']) {
      const refused = await client.get(`/domains/project/${projectId}`, { key: fresh.secretKey });
      expect([projectId, refused.status, refused.body.error?.code]).toEqual([projectId, 403, 'FORBIDDEN']);
    }
  });

  it("answers 404 for another project's domain, an unknown id and a malformed one, and changes nothing", async () => {
    const { body: added } = await add(uniqueDomain());
    for (const [method, path] of [
      ['GET', `/domains/${added.id}/verify`],
      ['DELETE', `/domains/${added.id}`],
    ]) {
      const answer = await client.call(method, path, { key: other.secretKey });
      expect([method, answer.status, answer.body.error.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expect((await verify('6f1c1f1e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await verify('nope')).status).toBe(404);
    expect((await verify(added.id)).status).toBe(200);
  });

  it('deletes a domain, which then is gone and may be added again', async () => {
    const { body: added } = await add(uniqueDomain());
    const deleted = await client.delete(`/domains/${added.id}`, { key: project.secretKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });

    expect((await verify(added.id)).status).toBe(404);
    expect((await client.delete(`/domains/${added.id}`, { key: project.secretKey })).status).toBe(404);
    const listed = await client.get(`/domains/project/${project.id}`, { key: project.secretKey });
    expect(listed.body.map((d: { id: string }) => d.id)).not.toContain(added.id);
    expect((await add(added.domain, other.secretKey)).status).toBe(201);
  });

  it('lets mail be sent from a verified domain and its subdomains only, refusing others with the SPEC 403', async () => {
    const { body: added } = await add(uniqueDomain('sender'));
    publish(dns, added.records);
    expect((await verify(added.id)).body.status).toBe('VERIFIED');
    const { body: pending } = await add(uniqueDomain('pending'));
    const check = await startSenderCheck(api.dataSource);
    const from = async (address: string, projectId = project.id) => {
      const response = await fetch(`${check.url}/check?project=${projectId}&from=${encodeURIComponent(address)}`);
      return { status: response.status, body: (await response.json()) as any };
    };
    try {
      expect((await from(`news@${added.domain}`)).status).toBe(200);
      expect((await from(`News@Mail.Eu.${added.domain.toUpperCase()}`)).status).toBe(200);

      for (const [address, domain] of [
        [`news@${pending.domain}`, pending.domain],
        [`news@not-${added.domain}`, `not-${added.domain}`],
      ]) {
        const refused = await from(address);
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ success: false, error: { code: 'INTERNAL_SERVER_ERROR', statusCode: 403 } });
        expect(refused.body.error.message).toContain(domain);
        expect(refused.body.error.message).toMatch(/verif/i);
      }
      // Verified for this project only.
      expect((await from(`news@${added.domain}`, other.id)).status).toBe(403);
    } finally {
      await check.close();
    }
  });
});

describe('domains (SES transport: Easy DKIM identities)', () => {
  let dns: DnsTestServer;
  let ses: SesServer;
  let api: TestApi;
  let client: Client;
  let project: Keys;
  const mailFrom: { identity: string; body: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    ses = await SesServer.start();
    ses.route('PUT', /^\/v2\/email\/identities\/([^/]+)\/mail-from$/, (req) => {
      mailFrom.push({ identity: req.params[0], body: req.body });
      return { body: {} };
    });
    // The AWS SDK reads credentials from the environment itself; Jest gives each test file its own copy.
    process.env.AWS_ACCESS_KEY_ID = 'AKIDHERALDTEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'herald-test-secret';
    api = await startApi({ env: { DNS_SERVERS: dns.address, SES_REGION: 'eu-west-1', SES_ENDPOINT: ses.endpoint } });
    expect(api.config.transport).toBe('ses');
    client = new Client(api.url);
    project = (await signupWithProject(api)).project;
  });
  afterEach(() => dns.clear());
  afterAll(async () => {
    await api.close();
    await ses.close();
    await dns.close();
  });

  const add = (domain: string, key = project.secretKey) => client.post('/domains', { domain }, { key });
  const verify = (id: string, key = project.secretKey) => client.get(`/domains/${id}/verify`, { key });
  const dkimValues = (records: DomainRecord[]) => records.filter((r) => r.type === 'CNAME').map((r) => r.value);

  it("registers an SES identity and answers its three DKIM CNAMEs and the region's MAIL FROM records", async () => {
    const domain = uniqueDomain('ses');
    const answer = await add(domain);

    expect(answer.status).toBe(201);
    const identity = ses.identities.get(domain)!;
    expect(identity.type).toBe('DOMAIN');
    expect(answer.body.records).toEqual([
      ...identity.dkimTokens.map((token) => ({
        type: 'CNAME',
        name: `${token}._domainkey.${domain}`,
        value: `${token}.dkim.amazonses.com`,
        status: 'PENDING',
      })),
      { type: 'MX', name: `mail.${domain}`, value: 'feedback-smtp.eu-west-1.amazonses.com', priority: 10, status: 'PENDING' },
      { type: 'TXT', name: `mail.${domain}`, value: 'v=spf1 include:amazonses.com ~all', status: 'PENDING' },
      { type: 'TXT', name: `_dmarc.${domain}`, value: 'v=DMARC1; p=none;', status: 'PENDING' },
    ]);
    expect(mailFrom).toContainEqual({
      identity: domain,
      body: { MailFromDomain: `mail.${domain}`, BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' },
    });
  });

  it('verifies over DNS: PENDING with nothing published, VERIFIED with the CNAMEs, MX and SPF, PENDING when DKIM goes', async () => {
    const { body: added } = await add(uniqueDomain('ses'));
    expect((await verify(added.id)).body.status).toBe('PENDING');

    publish(dns, added.records);
    const verified = await verify(added.id);
    expect(verified.body.status).toBe('VERIFIED');
    expect(verified.body.verifiedAt).not.toBeNull();
    expect(verified.body.records.every((r: DomainRecord) => r.status === 'VERIFIED')).toBe(true);
    expect(ses.requests).toContainEqual({ method: 'GET', path: `/v2/email/identities/${added.domain}` });

    const dkim = added.records.find((r: DomainRecord) => r.type === 'CNAME');
    dns.remove(dkim.name);
    const lost = await verify(added.id);
    expect(lost.body).toMatchObject({ status: 'PENDING', verifiedAt: null });
    expect(record(lost.body.records, 'CNAME', dkim.name).status).toBe('PENDING');
  });

  it("counts the DKIM records found when SES reports the identity's DKIM verified", async () => {
    const { body: added } = await add(uniqueDomain('ses'));
    publish(dns, added.records, (r) => r.type !== 'CNAME');
    expect((await verify(added.id)).body.status).toBe('PENDING');

    ses.verifyIdentity(added.domain);
    const answer = await verify(added.id);
    expect(answer.body.status).toBe('VERIFIED');
    expect(answer.body.records.filter((r: DomainRecord) => r.type === 'CNAME').map((r: DomainRecord) => r.status)).toEqual([
      'VERIFIED',
      'VERIFIED',
      'VERIFIED',
    ]);
  });

  it('answers 409 before asking SES, and replaces an identity an earlier claim left: new DKIM tokens to publish', async () => {
    const domain = uniqueDomain('ses');
    const { body: first } = await add(domain);
    const creates = () => ses.requests.filter((r) => r.method === 'POST' && r.path === '/v2/email/identities').length;
    const before = creates();
    expect((await add(domain)).status).toBe(409);
    expect(creates()).toBe(before);

    // As if a delete had not reached SES: the row is gone, the identity (tagged with that claim) is not.
    await api.dataSource.query(`DELETE FROM domains WHERE id = $1`, [first.id]);
    const again = await add(domain);
    expect(again.status).toBe(201);
    expect(dkimValues(again.body.records)).toHaveLength(3);
    expect(dkimValues(again.body.records)).not.toEqual(dkimValues(first.records));
    expect(ses.identities.get(domain)!.dkimTokens.map((token) => `${token}.dkim.amazonses.com`)).toEqual(dkimValues(again.body.records));
  });

  it('refuses with 409 DOMAIN_IDENTITY_EXISTS a domain whose SES identity Herald did not create, and leaves that identity alone', async () => {
    const domain = uniqueDomain('ses');
    const made = await fetch(`${ses.endpoint}/v2/email/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ EmailIdentity: domain }),
    });
    expect(made.status).toBe(200);
    const tokens = [...ses.identities.get(domain)!.dkimTokens];

    const refused = await add(domain);

    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'DOMAIN_IDENTITY_EXISTS', details: { domain } });
    expect(refused.body.error.message).toContain(`aws sesv2 delete-email-identity --email-identity ${domain}`);
    expect(ses.identities.get(domain)!.dkimTokens).toEqual(tokens);
    const listed = await client.get(`/domains/project/${project.id}`, { key: project.secretKey });
    expect(listed.body.map((d: { domain: string }) => d.domain)).not.toContain(domain);
  });

  it("deletes a project's SES identities with it: a project adding the domain later gets new DKIM tokens and is not verified by the owner's records", async () => {
    const owner = await signupWithProject(api);
    const domain = uniqueDomain('ses');
    const { body: owned } = await add(domain, owner.project.secretKey);
    publish(dns, owned.records);
    ses.verifyIdentity(domain);
    expect((await verify(owned.id, owner.project.secretKey)).body.status).toBe('VERIFIED');

    expect((await owner.client.delete(`/users/@me/projects/${owner.project.id}`)).body).toEqual({ success: true });
    expect(ses.identities.has(domain)).toBe(false);

    // The owner's records stay in DNS; they name the old tokens, which prove nothing now.
    const { status, body: claimed } = await add(domain);
    expect(status).toBe(201);
    expect(dkimValues(claimed.records)).not.toEqual(dkimValues(owned.records));
    const checked = await verify(claimed.id);
    expect(checked.body.status).toBe('PENDING');
    expect(checked.body.records.filter((r: DomainRecord) => r.type === 'CNAME').map((r: DomainRecord) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  });

  it('keeps a project whose SES identities cannot be removed: 503, and deleting again works', async () => {
    const owner = await signupWithProject(api);
    const domain = uniqueDomain('ses');
    expect((await add(domain, owner.project.secretKey)).status).toBe(201);

    ses.failNext(1, 500, 'InternalFailure');
    const failed = await owner.client.delete(`/users/@me/projects/${owner.project.id}`);
    expect([failed.status, failed.body.error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await api.dataSource.query('SELECT 1 FROM projects WHERE id = $1', [owner.project.id])).toHaveLength(1);
    expect(ses.identities.has(domain)).toBe(true);

    expect((await owner.client.delete(`/users/@me/projects/${owner.project.id}`)).status).toBe(200);
    expect(ses.identities.has(domain)).toBe(false);
  });

  it('lets another project add a domain whose claim stayed PENDING for 7 days, with new DKIM tokens', async () => {
    const owner = await signupWithProject(api);
    const domain = uniqueDomain('ses');
    const { body: stale } = await add(domain, owner.project.secretKey);
    await api.dataSource.query(`UPDATE domains SET pending_since = now() - interval '6 days' WHERE id = $1`, [stale.id]);
    const taken = await add(domain);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'DOMAIN_TAKEN']);
    expect(taken.body.error.message).toContain('PENDING for 7 days');

    await api.dataSource.query(`UPDATE domains SET pending_since = now() - interval '7 days 1 minute' WHERE id = $1`, [stale.id]);
    const claimed = await add(domain);
    expect(claimed.status).toBe(201);
    expect(dkimValues(claimed.body.records)).not.toEqual(dkimValues(stale.records));
    expect((await verify(stale.id, owner.project.secretKey)).status).toBe(404);
  });

  it('deletes the SES identity with the domain, and deletes a domain SES no longer knows', async () => {
    const { body: added } = await add(uniqueDomain('ses'));
    expect((await client.delete(`/domains/${added.id}`, { key: project.secretKey })).body).toEqual({ success: true });
    expect(ses.identities.has(added.domain)).toBe(false);

    const { body: orphan } = await add(uniqueDomain('ses'));
    ses.identities.delete(orphan.domain);
    expect((await client.delete(`/domains/${orphan.id}`, { key: project.secretKey })).status).toBe(200);
  });

  it('answers 503 and stores nothing when SES fails', async () => {
    const domain = uniqueDomain('ses');
    ses.failNext(1, 500, 'InternalFailure');
    const answer = await add(domain);
    expect([answer.status, answer.body.error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    const listed = await client.get(`/domains/project/${project.id}`, { key: project.secretKey });
    expect(listed.body.map((d: { domain: string }) => d.domain)).not.toContain(domain);

    const { body: added } = await add(domain);
    ses.failNext(1, 500, 'InternalFailure');
    expect((await client.delete(`/domains/${added.id}`, { key: project.secretKey })).status).toBe(503);
    expect((await verify(added.id)).status).toBe(200);
  });
});
