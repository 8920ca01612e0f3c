import { MockActivityEnvironment } from '@temporalio/testing';
import { createDomainActivities } from '../../activities/domains';
import { loadConfig } from '../../src/config';
import { createDomainsService, type DomainBatchResult } from '../../src/domains/domains-service';
import type { DomainRecord } from '../../src/entities/domain';
import { DnsTestServer } from '../support/dns-server';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { addEndpoint, deliveriesOf, recordedEvents } from './sources-support';

describe('domain.verified and domain.failed webhook events from domain checks', () => {
  let database: ScratchDatabase;
  let dns: DnsTestServer;
  let projectId: string;
  let otherEndpoint: string;

  beforeAll(async () => {
    // Its own database: the background check pages through the PENDING domains of every project.
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'domain_hooks');
    dns = await DnsTestServer.start();
    [{ id: projectId }] = await database.dataSource.query(`INSERT INTO projects (name) VALUES ('Domains') RETURNING id`);
    await addEndpoint(database.dataSource, projectId, ['domain.verified', 'domain.failed']);
    const [{ id: other }] = await database.dataSource.query(`INSERT INTO projects (name) VALUES ('Other') RETURNING id`);
    otherEndpoint = await addEndpoint(database.dataSource, other, ['*']);
  });
  afterAll(async () => {
    await dns?.close();
    await database?.drop();
  });

  const config = () => loadConfig({ ...process.env, DNS_SERVERS: dns.address });
  const domains = () => createDomainsService(config(), database.dataSource);
  const batch = () => {
    const { checkPendingDomainBatch } = createDomainActivities({ dataSource: database.dataSource, config: config() });
    return new MockActivityEnvironment().run(checkPendingDomainBatch, { after: null, limit: 10 }) as Promise<DomainBatchResult>;
  };
  const eventsFor = async (domainId: string) => (await recordedEvents(database.dataSource, projectId)).filter((event) => event.data.domainId === domainId);

  /** Serves every record of a domain on the loopback DNS (TXT records of one name together). */
  function publish(records: DomainRecord[]): void {
    for (const r of records) {
      if (r.type === 'MX') dns.set(r.name, 'MX', [{ priority: r.priority!, exchange: r.value }]);
      if (r.type === 'TXT') dns.set(r.name, 'TXT', records.filter((t) => t.type === 'TXT' && t.name === r.name).map((t) => t.value));
    }
  }

  it('records domain.verified once when the explicit verify finds the records, and domain.failed when a verified identity record goes', async () => {
    const added = await domains().add(projectId, 'explicit.test');
    expect((await domains().verify(projectId, added.id)).status).toBe('PENDING');
    expect(await eventsFor(added.id)).toEqual([]);
    publish(added.records);
    expect((await domains().verify(projectId, added.id)).status).toBe('VERIFIED');
    expect((await domains().verify(projectId, added.id)).status).toBe('VERIFIED');
    const verified = await eventsFor(added.id);
    expect(verified).toEqual([
      {
        type: 'domain.verified',
        data: {
          domainId: added.id,
          domain: 'explicit.test',
          status: 'VERIFIED',
          records: expect.arrayContaining([{ type: 'TXT', name: '_herald.explicit.test', value: expect.any(String), status: 'VERIFIED' }]),
        },
        key: expect.stringMatching(new RegExp(`^domain:${added.id}:domain.verified:`)),
      },
    ]);
    dns.remove('_herald.explicit.test');
    expect((await domains().verify(projectId, added.id)).status).toBe('PENDING');
    expect((await eventsFor(added.id)).map(({ type, data }) => ({ type, status: data.status, reason: data.reason }))).toEqual([
      { type: 'domain.verified', status: 'VERIFIED', reason: undefined },
      { type: 'domain.failed', status: 'PENDING', reason: expect.stringContaining('no longer found') },
    ]);
  });

  it('records domain.verified from the periodic check, and domain.failed when a claim lapses after 7 days PENDING', async () => {
    const published = await domains().add(projectId, 'periodic.test');
    const lapsing = await domains().add(projectId, 'lapsing.test');
    await database.dataSource.query(`UPDATE domains SET pending_since = now() - interval '8 days' WHERE id = $1`, [lapsing.id]);
    publish(published.records);
    expect(await batch()).toMatchObject({ verified: 1, lapsed: 1 });
    expect((await eventsFor(published.id)).map((event) => event.type)).toEqual(['domain.verified']);
    expect(await eventsFor(lapsing.id)).toEqual([
      {
        type: 'domain.failed',
        data: { domainId: lapsing.id, domain: 'lapsing.test', status: 'PENDING', records: expect.any(Array), reason: expect.stringContaining('lapsed') },
        key: `domain:${lapsing.id}:lapsed`,
      },
    ]);
    expect(await deliveriesOf(database.dataSource, otherEndpoint)).toEqual([]);
  });
});
