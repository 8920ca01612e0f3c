import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createDomainActivities } from '../../activities/domains';
import { loadConfig } from '../../src/config';
import { createDomainsService, type DomainBatchResult } from '../../src/domains/domains-service';
import { Domain, type DomainRecord } from '../../src/entities/domain';
import { checkPendingDomains, DOMAIN_CHECK_BATCH_SIZE } from '../../workflows/domains';
import { DnsTestServer } from '../support/dns-server';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { SesServer } from '../support/ses-server';
import { useTimeSkipping } from '../support/temporal';

const temporal = useTimeSkipping();

describe('checkPendingDomains workflow', () => {
  it('pages through the pending domains batch by batch and sums what they found', async () => {
    const pages: DomainBatchResult[] = [
      { checked: DOMAIN_CHECK_BATCH_SIZE, verified: 3, lapsed: 0, next: 'domain-50' },
      { checked: DOMAIN_CHECK_BATCH_SIZE, verified: 0, lapsed: 2, next: 'domain-100' },
      { checked: 7, verified: 1, lapsed: 1, next: null },
    ];
    const checkPendingDomainBatch = jest.fn(async (_input: { after: string | null; limit: number }) => pages.shift()!);
    const summary = await temporal.withWorker({ checkPendingDomainBatch }, (taskQueue) =>
      temporal.env.client.workflow.execute(checkPendingDomains, { workflowId: `domain-check-${randomUUID()}`, taskQueue }),
    );

    expect(summary).toEqual({ checked: 2 * DOMAIN_CHECK_BATCH_SIZE + 7, verified: 4, lapsed: 3 });
    expect(checkPendingDomainBatch.mock.calls.map(([input]) => input)).toEqual([
      { after: null, limit: DOMAIN_CHECK_BATCH_SIZE },
      { after: 'domain-50', limit: DOMAIN_CHECK_BATCH_SIZE },
      { after: 'domain-100', limit: DOMAIN_CHECK_BATCH_SIZE },
    ]);
  });

  it('retries a batch that failed and carries on from where it was', async () => {
    let attempts = 0;
    const checkPendingDomainBatch = jest.fn(async ({ after }: { after: string | null }): Promise<DomainBatchResult> => {
      if (after === 'domain-50' && ++attempts === 1) throw new Error('database unavailable');
      return after === null ? { checked: 50, verified: 0, lapsed: 0, next: 'domain-50' } : { checked: 2, verified: 2, lapsed: 0, next: null };
    });
    const summary = await temporal.withWorker({ checkPendingDomainBatch }, (taskQueue) =>
      temporal.env.client.workflow.execute(checkPendingDomains, { workflowId: `domain-check-${randomUUID()}`, taskQueue }),
    );

    expect(summary).toEqual({ checked: 52, verified: 2, lapsed: 0 });
    expect(checkPendingDomainBatch.mock.calls.map(([input]) => input.after)).toEqual([null, 'domain-50', 'domain-50']);
  });
});

describe('checkPendingDomainBatch activity', () => {
  let database: ScratchDatabase;
  let dns: DnsTestServer;
  let projectId: string;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'domains');
    dns = await DnsTestServer.start();
    [{ id: projectId }] = await database.dataSource.query(`INSERT INTO projects (name) VALUES ('Domains') RETURNING id`);
  });
  afterAll(async () => {
    await dns?.close();
    await database?.drop();
  });

  const config = () => loadConfig({ ...process.env, DNS_SERVERS: dns.address });

  /** Serves every record of a domain on the loopback DNS (TXT records of one name together). */
  function publish(records: DomainRecord[]): void {
    for (const r of records) {
      if (r.type === 'MX') dns.set(r.name, 'MX', [{ priority: r.priority!, exchange: r.value }]);
      if (r.type === 'TXT') dns.set(r.name, 'TXT', records.filter((t) => t.type === 'TXT' && t.name === r.name).map((t) => t.value));
    }
  }

  it('checks every PENDING domain over DNS in id order, batch by batch, and leaves verified ones alone', async () => {
    const domains = createDomainsService(config(), database.dataSource);
    const published = await domains.add(projectId, 'published.test');
    const partial = await domains.add(projectId, 'partial.test');
    const silent = await domains.add(projectId, 'silent.test');
    const already = await domains.add(projectId, 'already.test');
    await database.dataSource.query(`UPDATE domains SET status = 'VERIFIED', verified_at = now() WHERE id = $1`, [already.id]);
    publish(published.records);
    publish(partial.records.filter((r) => r.type === 'MX'));

    const { checkPendingDomainBatch } = createDomainActivities({ dataSource: database.dataSource, config: config() });
    const pendingIds = [published.id, partial.id, silent.id].sort();
    const batch = (after: string | null) =>
      new MockActivityEnvironment().run(checkPendingDomainBatch, { after, limit: 2 }) as Promise<DomainBatchResult>;
    const first = await batch(null);
    expect(first).toMatchObject({ checked: 2, next: pendingIds[1] });
    const second = await batch(first.next);
    expect(second).toMatchObject({ checked: 1, next: null });
    expect(first.verified + second.verified).toBe(1);

    const stored = async (id: string) => database.dataSource.getRepository(Domain).findOneByOrFail({ id });
    const nowVerified = await stored(published.id);
    expect(nowVerified).toMatchObject({ status: 'VERIFIED', verifiedAt: expect.any(Date), lastCheckedAt: expect.any(Date) });
    const partly = await stored(partial.id);
    expect(partly.status).toBe('PENDING');
    expect(partly.records.map((r) => [r.type, r.status])).toEqual([
      ['TXT', 'PENDING'],
      ['MX', 'VERIFIED'],
      ['TXT', 'PENDING'],
      ['TXT', 'PENDING'],
    ]);
    expect(await stored(silent.id)).toMatchObject({ status: 'PENDING', lastCheckedAt: expect.any(Date) });
    expect((await stored(already.id)).lastCheckedAt).toBeNull();
  });

  it('runs inside the workflow on the time-skipping server and verifies a domain once its records are published', async () => {
    const domains = createDomainsService(config(), database.dataSource);
    const late = await domains.add(projectId, 'late.test');
    const activities = createDomainActivities({ dataSource: database.dataSource, config: config() });

    await temporal.withWorker(activities, async (taskQueue) => {
      const run = () => temporal.env.client.workflow.execute(checkPendingDomains, { workflowId: `domain-check-${randomUUID()}`, taskQueue });
      expect((await run()).verified).toBe(0);
      publish(late.records);
      const summary = await run();
      expect(summary.verified).toBe(1);
      expect(await domains.get(projectId, late.id)).toMatchObject({ status: 'VERIFIED' });
      expect((await run()).checked).toBe(summary.checked - 1);
    });
  });

  describe('claims PENDING for 7 days lapse (SES transport)', () => {
    let ses: SesServer;
    let owner: string;
    let other: string;

    beforeAll(async () => {
      ses = await SesServer.start();
      process.env.AWS_ACCESS_KEY_ID = 'AKIDHERALDTEST';
      process.env.AWS_SECRET_ACCESS_KEY = 'herald-test-secret';
      owner = projectId;
      [{ id: other }] = await database.dataSource.query(`INSERT INTO projects (name) VALUES ('Other') RETURNING id`);
    });
    beforeEach(async () => {
      await database.dataSource.query('DELETE FROM domains');
      ses.reset();
    });
    afterAll(() => ses?.close());

    const config = () => loadConfig({ ...process.env, DNS_SERVERS: dns.address, SES_REGION: 'eu-west-1', SES_ENDPOINT: ses.endpoint });
    const domains = () => createDomainsService(config(), database.dataSource);
    const batch = () => {
      const { checkPendingDomainBatch } = createDomainActivities({ dataSource: database.dataSource, config: config() });
      return new MockActivityEnvironment().run(checkPendingDomainBatch, { after: null, limit: 10 }) as Promise<DomainBatchResult>;
    };
    /** The owner's claim of `name`, PENDING for `days`. */
    const claim = async (name: string, days: number) => {
      const domain = await domains().add(owner, name);
      await database.dataSource.query(`UPDATE domains SET pending_since = now() - $2 * interval '1 day' WHERE id = $1`, [domain.id, days]);
      return domain;
    };
    /** Marks a domain VERIFIED, as a check that found its records would, long after it was added. */
    const markVerified = (id: string) =>
      database.dataSource.query(`UPDATE domains SET status = 'VERIFIED', verified_at = now(), pending_since = now() - interval '30 days' WHERE id = $1`, [id]);
    const stored = async () => (await database.dataSource.query('SELECT domain FROM domains ORDER BY domain')).map((row: { domain: string }) => row.domain);
    const tokens = (records: DomainRecord[]) => records.filter((r) => r.type === 'CNAME').map((r) => r.value);

    it('removes a claim PENDING for 7 days with its SES identity, keeps younger and verified ones, and lets another project claim it anew', async () => {
      const lapsed = await claim('lapsed.test', 8);
      await claim('young.test', 6);
      await markVerified((await claim('kept.test', 0)).id);

      expect(await batch()).toEqual({ checked: 2, verified: 0, lapsed: 1, next: null });

      expect(await stored()).toEqual(['kept.test', 'young.test']);
      expect([...ses.identities.keys()].sort()).toEqual(['kept.test', 'young.test']);
      expect(await batch()).toEqual({ checked: 1, verified: 0, lapsed: 0, next: null });

      const claimed = await domains().add(other, 'lapsed.test');
      expect(claimed.projectId).toBe(other);
      expect(tokens(claimed.records)).toHaveLength(3);
      expect(tokens(claimed.records)).not.toEqual(tokens(lapsed.records));
      expect(ses.identities.get('lapsed.test')!.dkimTokens.map((token) => `${token}.dkim.amazonses.com`)).toEqual(tokens(claimed.records));
    });

    it('keeps a lapsed claim while SES cannot remove its identity, and removes it when the batch is retried', async () => {
      await claim('stuck.test', 8);

      ses.failNext(1, 500, 'InternalFailure');
      await expect(batch()).rejects.toThrow(/could not be reached/);
      expect(await stored()).toEqual(['stuck.test']);
      expect(ses.identities.has('stuck.test')).toBe(true);

      expect(await batch()).toMatchObject({ lapsed: 1 });
      expect(await stored()).toEqual([]);
      expect(ses.identities.has('stuck.test')).toBe(false);
    });

    it('lapses a claim 7 days after it fell back to PENDING, not after it was added', async () => {
      const fallen = await claim('fallen.test', 0);
      await markVerified(fallen.id);

      expect((await domains().verify(owner, fallen.id)).status).toBe('PENDING');

      expect(await batch()).toEqual({ checked: 1, verified: 0, lapsed: 0, next: null });
      expect(await stored()).toEqual(['fallen.test']);
    });

    it('lets another project claim a lapsed domain at once, before the background check removes it', async () => {
      const lapsed = await claim('early.test', 7.5);
      await claim('busy.test', 6.9);

      const claimed = await domains().add(other, 'early.test');
      expect(claimed.projectId).toBe(other);
      expect(tokens(claimed.records)).not.toEqual(tokens(lapsed.records));
      await expect(domains().add(other, 'busy.test')).rejects.toMatchObject({ statusCode: 409, code: 'DOMAIN_TAKEN' });
    });
  });
});
