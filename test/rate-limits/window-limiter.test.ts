import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { WindowLimiter } from '../../src/rate-limits/window-limiter';
import { withinOneMinute } from '../support/wait';

describe('the per-minute window limiter (WindowLimiter)', () => {
  let dataSource: DataSource;
  let statements: number;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
    const query = dataSource.query.bind(dataSource);
    jest.spyOn(dataSource, 'query').mockImplementation((sql: string, parameters?: unknown[]) => {
      if (sql.includes('rate_limit_windows')) statements += 1;
      return query(sql, parameters);
    });
  });
  beforeEach(() => {
    statements = 0;
  });
  afterAll(() => dataSource?.destroy());

  const bucket = () => `test:${process.pid}:${Math.random()}`;

  it('adds a high limit\'s requests to the shared count in batches of a thousandth of it', async () => {
    const limiter = new WindowLimiter(dataSource, 10_000_000);
    const name = bucket();
    const started = Date.now();
    for (let i = 0; i < 2_000; i += 1) await limiter.count(name);
    // 25 a batch would be 80 statements; 10,000 a batch leaves the first request's, those 250 ms
    // apart, and one more should a new minute begin meanwhile.
    expect(statements).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / 250));
    expect(statements).toBeLessThan(20);
  });

  it('counts every request in Postgres within a batch of a low limit, so the limit holds exactly', async () => {
    const limiter = new WindowLimiter(dataSource, 30);
    const other = new WindowLimiter(dataSource, 30);
    const name = bucket();
    // All in one minute's window: not within three seconds of its end.
    await withinOneMinute(3);
    const answers = [];
    for (let i = 0; i < 20; i += 1) answers.push(await limiter.count(name), await other.count(name));
    expect(answers.filter((answer) => !answer.limited)).toHaveLength(30);
  });
});
