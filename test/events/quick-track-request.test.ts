import { quickTrackRequest, TrackRequest } from '../../src/events/events-dtos';
import { parseBody } from '../../src/http/validate';

/** What the DTO answers for a body: the validated value, or 'refused'. */
function byDto(body: unknown): TrackRequest | 'refused' {
  try {
    return parseBody(TrackRequest, body);
  } catch {
    return 'refused';
  }
}

const emails: unknown[] = [
  'ada@example.com',
  'Ada.Lovelace+news@Example.co.uk',
  'a@b',
  'no-at-sign',
  '@example.com',
  'ada@',
  'ada@@example.com',
  ' ada@example.com',
  'ada@example.com ',
  '"quoted local"@example.com',
  'ada@[127.0.0.1]',
  'ada@exa mple.com',
  'ünïcødé@exämple.com',
  '𝓪𝓭𝓪@example.com',
  `${'a'.repeat(64)}@example.com`,
  `${'a'.repeat(65)}@example.com`,
  `ada@${'b'.repeat(300)}.com`,
  `${'a'.repeat(60)}@${Array.from({ length: 5 }, () => 'c'.repeat(60)).join('.')}.com`,
  '',
  null,
  42,
  true,
  ['ada@example.com'],
  { email: 'ada@example.com' },
  undefined,
];

const events: unknown[] = [
  'signup',
  'page.viewed',
  '',
  ' ',
  'x'.repeat(255),
  'x'.repeat(256),
  '😀'.repeat(127),
  '😀'.repeat(128),
  '😀'.repeat(200),
  'e\u0301'.repeat(128),
  '\uFE0F'.repeat(300),
  null,
  7,
  false,
  ['signup'],
  {},
  undefined,
];

const datas: unknown[] = [undefined, null, {}, { plan: 'pro', n: 1 }, { nested: { a: [1, 2] } }, [], [{ a: 1 }], 'text', 3, true];
const subscribeds: unknown[] = [undefined, null, true, false, 'true', 0, 1, {}, []];
const extras: Record<string, unknown>[] = [{}, { unknown: 1 }, { id: 'x', createdAt: 'now' }, { __proto__: { email: 'x' } }];

/** Every combination of the values above, as JSON would deliver them (undefined means absent). */
function* bodies(): Generator<unknown> {
  for (const email of emails)
    for (const event of events)
      for (const data of datas)
        for (const subscribed of subscribeds.slice(0, 4)) {
          yield JSON.parse(JSON.stringify({ email, event, data, subscribed }));
        }
  for (const subscribed of subscribeds) yield JSON.parse(JSON.stringify({ email: 'ada@example.com', event: 'signup', subscribed }));
  for (const extra of extras) yield { ...JSON.parse(JSON.stringify(extra)), email: 'ada@example.com', event: 'signup' };
  yield JSON.parse('{"email":"ada@example.com","event":"signup","__proto__":{"data":[]}}');
  yield JSON.parse('{"email":"ada@example.com","event":"signup","constructor":{"name":"Other"}}');
  yield JSON.parse('{"email":"ada@example.com","event":"signup","hasOwnProperty":1}');
  for (const other of [null, [], 'body', 3, true, [{ email: 'ada@example.com', event: 'signup' }]]) yield other;
}

describe('quickTrackRequest: the hot path check of a track body', () => {
  it('answers only what the DTO accepts, equal to what the DTO answers', () => {
    let quick = 0;
    let accepted = 0;
    let total = 0;
    for (const body of bodies()) {
      total += 1;
      const fast = quickTrackRequest(body);
      const dto = byDto(body);
      if (dto !== 'refused') accepted += 1;
      if (fast === undefined) continue;
      quick += 1;
      expect({ body, dto }).toEqual({ body, dto: expect.any(TrackRequest) });
      expect(fast).toBeInstanceOf(TrackRequest);
      expect({ body, fast: { ...fast } }).toEqual({ body, fast: { ...(dto as TrackRequest) } });
      expect(Object.keys(fast).sort()).toEqual(Object.keys(dto as TrackRequest).sort());
    }
    expect(total).toBeGreaterThan(10_000);
    // The fast path is the usual path: it takes most of what the DTO accepts (the rest are long strings of astral characters).
    expect(accepted).toBeGreaterThan(500);
    expect(quick).toBeGreaterThan(accepted / 2);
  });

  it('leaves a body with any other property to the DTO', () => {
    expect(quickTrackRequest({ email: 'ada@example.com', event: 'signup' })).toBeDefined();
    expect(quickTrackRequest({ email: 'ada@example.com', event: 'signup', projectId: 'other' })).toBeUndefined();
  });
});
