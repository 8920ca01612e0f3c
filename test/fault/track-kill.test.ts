import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { EventDispatcher } from '../../src/events/dispatcher';
import { redeliverDue } from '../../src/events/redelivery';
import { registerSegmentTracking } from '../../src/segments/segment-tracking';
import { Client, signupWithProject } from '../support/api';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

/** How many requests are sent at once, each for a contact of its own. */
const CONNECTIONS = 40;
/** Answered requests before the API is killed. */
const BEFORE_KILL = 400;

/** An API in its own process on the database `databaseUrl` names; resolves with its URL once it listens. */
function startApiProcess(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../support/api-process.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /port (\d+)/.exec(output)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.once('exit', (code) => reject(new Error(`API process exited with ${code} before listening`)));
  });
}

/**
 * On a database of its own: its redelivery pass claims the due dispatches of every project, so on
 * the shared one it would take other test files' dispatches, and theirs would take this file's.
 */
describe('POST /v1/track when the API is SIGKILLed under load', () => {
  let database: ScratchDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'track_kill', 4);
    ({ dataSource } = database);
  });
  afterAll(() => database?.drop());

  it('stores every answered event once and none twice, and the worker dispatches what the killed process did not', async () => {
    const { child, url } = await startApiProcess(database.url);
    const { project } = await signupWithProject({ url });
    const client = new Client(url);
    const key = project.secretKey;
    const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
    const segment = await client.post('/segments', { name: 'Everyone pro', condition, trackMembership: true }, { key });
    expect(segment.status).toBe(201);

    const answered: number[] = [];
    let next = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (!killed) {
          const n = next++;
          const answer = await client.post('/v1/track', { email: `n${n}@kill.test`, event: 'tick', data: { plan: 'pro', n } }, { key }).catch(() => undefined);
          if (answer?.status === 200) answered.push(n);
          if (!killed && answered.length >= BEFORE_KILL) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      }),
    );
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve)));

    const stored: { n: number; count: number }[] = await dataSource.query(
      `SELECT (data->>'n')::int AS n, count(*)::int AS count FROM events WHERE project_id = $1 AND name = 'tick' GROUP BY 1`,
      [project.id],
    );
    expect(stored.filter((row) => row.count !== 1)).toEqual([]);
    const storedNumbers = new Set(stored.map((row) => row.n));
    expect(answered.filter((n) => !storedNumbers.has(n))).toEqual([]);

    // The worker's redelivery pass, made due at once: every contact with a stored event enters the segment.
    const dispatcher = new EventDispatcher();
    registerSegmentTracking(dispatcher, { dataSource });
    await dataSource.query('UPDATE event_dispatches SET retry_at = now() WHERE project_id = $1', [project.id]);
    while ((await dataSource.query('SELECT 1 FROM event_dispatches WHERE project_id = $1 LIMIT 1', [project.id])).length > 0) {
      await redeliverDue(dataSource, dispatcher, 1000);
    }
    const outside: unknown[] = await dataSource.query(
      `SELECT c.email FROM contacts c WHERE c.project_id = $1
          AND NOT EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = $2 AND m.contact_id = c.id)`,
      [project.id, segment.body.id],
    );
    expect(outside).toEqual([]);
    const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM contacts WHERE project_id = $1', [project.id]);
    expect(count).toBe(stored.length);
  }, 120_000);
});
