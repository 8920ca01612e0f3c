import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TrackWriter } from '../../src/events/track-writer';
import { createProject } from '../automations/fixtures';

/** A writer, as one API process has, counting the transactions it commits. */
function countedWriter(dataSource: DataSource) {
  const contacts = new ContactsService(dataSource, new EventDispatcher());
  const commit = contacts.commit.bind(contacts);
  const counted = { transactions: 0 };
  contacts.commit = (work) => {
    counted.transactions += 1;
    return commit(work);
  };
  return { writer: new TrackWriter(contacts), counted };
}

describe('track groups of two API processes holding the same contacts of two projects (TrackWriter)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 6);
  });
  afterAll(() => dataSource?.destroy());

  it('lock them in one order, so neither waits for the other in a circle and each group commits whole', async () => {
    const [a, b] = [await createProject(dataSource), await createProject(dataSource)];
    const first = countedWriter(dataSource);
    const second = countedWriter(dataSource);
    const rounds = 4;
    for (let round = 0; round < rounds; round += 1) {
      const event = `round.${round}`;
      // Each writer's first request is written alone; the two after it form one group, in opposite project orders.
      await Promise.all([
        first.writer.track(a.projectId, { email: `opener-1-${round}@example.test`, event }),
        first.writer.track(a.projectId, { email: 'shared-a@example.test', event, data: { by: 'first' } }),
        first.writer.track(b.projectId, { email: 'shared-b@example.test', event, data: { by: 'first' } }),
        second.writer.track(b.projectId, { email: `opener-2-${round}@example.test`, event }),
        second.writer.track(b.projectId, { email: 'shared-b@example.test', event, data: { by: 'second' } }),
        second.writer.track(a.projectId, { email: 'shared-a@example.test', event, data: { by: 'second' } }),
      ]);
    }
    // Two transactions per writer and round: a group that met a deadlock would have been rolled back and written again request by request.
    expect([first.counted.transactions, second.counted.transactions]).toEqual([2 * rounds, 2 * rounds]);
    const [{ count }] = await dataSource.query(
      `SELECT count(*)::int AS count FROM events e JOIN contacts c ON c.id = e.contact_id WHERE c.email IN ('shared-a@example.test', 'shared-b@example.test') AND e.project_id = ANY($1::uuid[])`,
      [[a.projectId, b.projectId]],
    );
    expect(count).toBe(4 * rounds);
  });
});
