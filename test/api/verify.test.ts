import { createSocket, type Socket } from 'node:dgram';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { disposableEmailBlocklist } from 'disposable-email-domains-js';
import { EmailVerifier } from '../../src/verify/verifier';
import { parseAddress } from '../../src/verify/syntax';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';
import { DnsTestServer } from '../support/dns-server';

/** Test domains resolve to loopback addresses that nothing is asked to serve. */
const LOOPBACK = '127.0.0.1';

describe('POST /v1/verify', () => {
  let dns: DnsTestServer;
  let api: TestApi;
  let client: Client;
  let project: { publicKey: string; secretKey: string };

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    dns.serve({
      'acme-mail.test': { MX: [{ priority: 10, exchange: 'mx.acme-mail.test' }], A: [LOOPBACK] },
      'a-only.test': { A: [LOOPBACK] },
      'no-mail.test': { MX: [{ priority: 0, exchange: '.' }], A: [LOOPBACK] },
      'mailinator.com': { MX: [{ priority: 10, exchange: 'mail.mailinator.com' }] },
      'gmail.com': { MX: [{ priority: 5, exchange: 'gmail-smtp-in.l.google.com' }] },
      'duck.com': { MX: [{ priority: 10, exchange: 'inbound-smtp.duck.com' }] },
    });
    api = await startApi({ env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'false' } });
    client = new Client(api.url);
    project = (await signupWithProject(api)).project;
  });
  afterAll(async () => {
    await api.close();
    await dns.close();
  });

  const verify = async (email: unknown, key = project.secretKey) => client.post('/v1/verify', { email }, { key });
  const result = async (email: string) => {
    const answer = await verify(email);
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    return answer.body.data;
  };

  it('finds an address at a domain with MX records valid', async () => {
    expect(await result('ada@acme-mail.test')).toEqual({
      email: 'ada@acme-mail.test',
      valid: true,
      isDisposable: false,
      isAlias: false,
      isTypo: false,
      isPlusAddressed: false,
      isPersonalEmail: false,
      domainExists: true,
      hasWebsite: false,
      hasMxRecords: true,
      reasons: ['The domain has MX records.', 'The domain has no reachable website.'],
    });
  });

  it('accepts a domain without MX but with an A record, saying so', async () => {
    const data = await result('ada@a-only.test');
    expect(data).toMatchObject({ valid: true, domainExists: true, hasMxRecords: false });
    expect(data.reasons[0]).toMatch(/no MX records/);
  });

  it('refuses a domain that does not exist, or that publishes a null MX', async () => {
    const missing = await result('ada@nowhere.test');
    expect(missing).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false, hasWebsite: false });
    expect(missing.reasons).toEqual(['The domain does not exist.']);
    const nullMx = await result('ada@no-mail.test');
    expect(nullMx).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false });
    expect(nullMx.reasons[0]).toMatch(/does not accept email/);
  });

  it('marks a disposable domain, and never calls it valid', async () => {
    expect(disposableEmailBlocklist()).toContain('mailinator.com');
    const data = await result('temp@mailinator.com');
    expect(data).toMatchObject({ valid: false, isDisposable: true, domainExists: true, hasMxRecords: true });
    expect(data.reasons).toContain('The domain belongs to a disposable email service.');
  });

  it('suggests the domain that was probably meant', async () => {
    const data = await result('ada@gmial.com');
    expect(data).toMatchObject({ isTypo: true, suggestion: 'gmail.com', isPersonalEmail: false });
    expect(data.reasons).toContain('The domain looks like a typo of gmail.com.');
    const fine = await result('ada@gmail.com');
    expect(fine).toMatchObject({ valid: true, isTypo: false, isPersonalEmail: true });
    expect(fine).not.toHaveProperty('suggestion');
  });

  it('recognises plus-addressing, personal providers and relay aliases', async () => {
    expect(await result('ada+news@acme-mail.test')).toMatchObject({ valid: true, isPlusAddressed: true });
    expect(await result('+news@acme-mail.test')).toMatchObject({ isPlusAddressed: false });
    const relay = await result('x7k2q@duck.com');
    expect(relay).toMatchObject({ valid: true, isAlias: true, isPersonalEmail: false });
    expect(relay.reasons).toContain('The address belongs to an email relay (alias) service.');
    expect(await result('ada@privaterelay.appleid.com')).toMatchObject({ isAlias: true, valid: false });
  });

  it('refuses a string that is not an address with 422 invalid_string, the reason as its message', async () => {
    for (const [email, reason] of [
      ['ada..lovelace@acme-mail.test', /consecutive dots/],
      ['ada@acme-mail', /top-level domain/],
      ['ada@acme..test', /consecutive dots/],
      ['ada.acme-mail.test', /no @/],
      [`${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.test`, /longer than 254/],
    ] as const) {
      const answer = await verify(email);
      expect([email, answer.status, answer.body.error.code]).toEqual([email, 422, 'VALIDATION_ERROR']);
      expect(answer.body.error.errors).toEqual([{ field: 'email', code: 'invalid_string', message: expect.stringMatching(reason), received: email }]);
    }
  });

  it('refuses a missing or non-string email with 422, and a public key with 401', async () => {
    for (const body of [{}, { email: 42 }, { email: '' }]) {
      const answer = await client.post('/v1/verify', body, { key: project.secretKey });
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
      expect(answer.body.error.errors[0].field).toBe('email');
    }
    const publicKey = await verify('ada@acme-mail.test', project.publicKey);
    expect(publicKey.status).toBe(401);
    expect(publicKey.body.error.code).toBe('INVALID_API_KEY');
    expect((await client.post('/v1/verify', { email: 'ada@acme-mail.test' })).status).toBe(401);
  });
});

describe('EmailVerifier', () => {
  let dns: DnsTestServer;
  let website: Server;
  let websitePort: number;
  const seen: { method?: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    website = createServer((req, res) => {
      seen.push({ method: req.method, headers: req.headers });
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => website.listen(0, LOOPBACK, () => resolve()));
    websitePort = (website.address() as AddressInfo).port;
    dns.serve({
      'site.test': { MX: [{ priority: 10, exchange: 'mx.site.test' }], A: [LOOPBACK] },
      'www.site.test': { CNAME: ['site.test'] },
    });
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    website.closeAllConnections();
    await new Promise((resolve) => website.close(resolve));
    await dns.close();
  });

  const verifier = (options: Partial<ConstructorParameters<typeof EmailVerifier>[0]> = {}) =>
    new EmailVerifier({
      dnsServers: [dns.address],
      websiteProbes: [{ protocol: 'http', port: websitePort }],
      websiteTimeoutMs: 500,
      dnsTimeoutMs: 1000,
      allowPrivateAddresses: true,
      ...options,
    });

  it('finds a website at the address the configured DNS gives, asking for the domain by Host', async () => {
    const data = await verifier().verify('ada@site.test');
    expect(data).toMatchObject({ valid: true, hasWebsite: true });
    expect(data.reasons).toEqual(['The domain has MX records.']);
    expect(seen).toEqual([{ method: 'HEAD', headers: expect.objectContaining({ host: `site.test:${websitePort}` }) }]);
    expect(await verifier().verify('ada@www.site.test')).toMatchObject({ hasWebsite: true, hasMxRecords: true });
  });

  it('never contacts loopback or private addresses unless allowed', async () => {
    const data = await verifier({ allowPrivateAddresses: false }).verify('ada@site.test');
    expect(data).toMatchObject({ valid: true, hasWebsite: false });
    expect(seen).toEqual([]);
  });

  it('gives up on a website that does not answer in time', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, LOOPBACK, () => resolve()));
    try {
      const port = (silent.address() as AddressInfo).port;
      const started = Date.now();
      const data = await verifier({ websiteProbes: [{ protocol: 'http', port }], websiteTimeoutMs: 300 }).verify('ada@site.test');
      expect(data.hasWebsite).toBe(false);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('gives up on DNS servers that do not answer in time', async () => {
    const blackHole: Socket = createSocket('udp4');
    await new Promise<void>((resolve) => blackHole.bind(0, LOOPBACK, () => resolve()));
    try {
      const started = Date.now();
      const data = await verifier({ dnsServers: [`${LOOPBACK}:${blackHole.address().port}`], dnsTimeoutMs: 400 }).verify(
        'ada@site.test',
      );
      expect(data).toMatchObject({ valid: false, domainExists: false, hasWebsite: false });
      expect(data.reasons).toEqual(['The domain could not be looked up in DNS.']);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      blackHole.close();
    }
  });
});

describe('parseAddress', () => {
  it.each([
    ['ada@example.com', true],
    ["o'brien.j_x-y+z@mail.example.co.uk", true],
    ['José@bücher.example', true],
    ['.ada@example.com', false],
    ['ada.@example.com', false],
    ['ada lovelace@example.com', false],
    ['"ada"@example.com', false],
    ['ada@example.c', false],
    ['ada@-example.com', false],
    ['ada@example.123', false],
    ['ada@[192.0.2.1]', false],
    [`${'a'.repeat(65)}@example.com`, false],
    ['', false],
  ])('%s is %s', (email, valid) => {
    expect(parseAddress(email).valid).toBe(valid);
  });
});
