import type { DataSource } from 'typeorm';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TrackWriter } from '../../src/events/track-writer';
import { createProject } from '../automations/fixtures';
import { until } from '../support/wait';

describe('tracked events answered before their delivery (TrackWriter backlog)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
  });
  afterAll(() => dataSource?.destroy());

  it('answers no more events than its bound ahead of their delivery when subscribers fall behind, and delivers each one', async () => {
    const { projectId } = await createProject(dataSource);
    const dispatcher = new EventDispatcher();
    let answered = 0;
    let delivered = 0;
    let mostAhead = 0;
    const deliveredIds = new Set<string>();
    // A subscriber whose work grows with the events it is given (2 ms each), slower than the commits.
    dispatcher.subscribe(async (events) => {
      const own = events.filter((event) => event.projectId === projectId && event.name === 'tick');
      if (own.length > 0) await dataSource.query('SELECT pg_sleep($1)', [own.length * 0.002]);
      for (const event of own) deliveredIds.add(event.id);
      delivered += own.length;
    });
    const bound = 20;
    const writer = new TrackWriter(new ContactsService(dataSource, dispatcher), bound);

    const clients = 10;
    const perClient = 30;
    const answers = await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const ids: string[] = [];
        for (let n = 0; n < perClient; n += 1) {
          const tracked = await writer.track(projectId, { email: `client-${c}@example.test`, event: 'tick', data: { n } });
          ids.push(tracked.event);
          answered += 1;
          mostAhead = Math.max(mostAhead, answered - delivered);
        }
        return ids;
      }),
    );

    // A group is written while fewer than `bound` answered events wait, and holds at most one request per client.
    expect(mostAhead).toBeLessThanOrEqual(bound + clients);
    const stored: { id: string }[] = await dataSource.query(`SELECT id FROM events WHERE project_id = $1 AND name = 'tick'`, [projectId]);
    expect(stored).toHaveLength(clients * perClient);
    await until(async () => deliveredIds.size, (size) => size === clients * perClient, 'every tracked event delivered');
    expect([...deliveredIds].sort()).toEqual(answers.flat().sort());
  });
});

