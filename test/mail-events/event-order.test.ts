import { MailEventFixture } from '../support/mail-event-fixture';
import { permanentBounce, sesEvent } from '../support/mail-events';

/** Every order of `items`. */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** When SES saw each event of one email's life. */
const AT: Record<string, string> = {
  Send: '2025-01-01T12:00:00.000Z',
  Delivery: '2025-01-01T12:00:02.000Z',
  Open: '2025-01-01T12:05:00.000Z',
  Click: '2025-01-01T12:06:00.000Z',
  Bounce: '2025-01-01T12:10:00.000Z',
  Complaint: '2025-01-01T12:10:00.000Z',
};

describe('mail events applied in any order', () => {
  let fixture: MailEventFixture;

  beforeAll(async () => {
    fixture = await MailEventFixture.start();
  });
  afterAll(() => fixture?.close());

  /**
   * Sends a fresh campaign email and receives its events in `order`: the first `early` of them
   * the instant SES accepts the message (before Herald records the send), the rest after.
   * With `tagged` false the records carry only the SES message id, as SES identity notifications do.
   */
  async function deliverInOrder(order: string[], early: number, tagged: boolean) {
    const email = await fixture.queuedEmail({ campaign: true });
    const record = (eventType: string, messageId: string) => {
      const section = { Bounce: permanentBounce(email.address), Complaint: { complaintFeedbackType: 'abuse' }, Click: { link: 'https://example.com/' } }[eventType];
      const ses = sesEvent(eventType, messageId, section, AT[eventType]);
      return tagged ? { ...ses, mail: { ...ses.mail, tags: { emailId: [email.emailId] } } } : ses;
    };
    let sentAs = '';
    fixture.mailer.onAccept = async (_message, messageId) => {
      sentAs = messageId;
      for (const eventType of order.slice(0, early)) expect((await fixture.receive(record(eventType, messageId))).outcome).toBe('kept');
    };
    expect(await fixture.delivery.deliver(email.emailId)).toBe('SENT');
    for (const eventType of order.slice(early)) expect((await fixture.receive(record(eventType, sentAs))).outcome).toBe('applied');
    return fixture.outcome(email);
  }

  it.each([
    ['a permanent bounce', 'Bounce', 'BOUNCED', 'BOUNCE', 'email.bounced', { bouncedAt: new Date(AT.Bounce), complainedAt: null }, { bounced_count: 1, complained_count: 0 }],
    ['a complaint', 'Complaint', 'COMPLAINED', 'COMPLAINT', 'email.complained', { bouncedAt: null, complainedAt: new Date(AT.Complaint) }, { bounced_count: 0, complained_count: 1 }],
  ])(
    'Send, Delivery, Open, Click and %s, in each of the 120 orders and recorded at every point, leave the same email, counters and suppression',
    async (_name, last, status, reason, lastEvent, lastColumns, lastCounters) => {
      const expected = {
        row: {
          status,
          hasMessageId: true,
          hasSentAt: true,
          error: null,
          deliveredAt: new Date(AT.Delivery),
          openedAt: new Date(AT.Open),
          clickedAt: new Date(AT.Click),
          ...lastColumns,
        },
        counters: { sent_count: 1, delivered_count: 1, opened_count: 1, clicked_count: 1, ...lastCounters },
        suppression: reason,
        subscribed: false,
        events: ['contact.unsubscribed', 'email.clicked', 'email.delivered', 'email.opened', 'email.sent', lastEvent].sort(),
        waitingInBacklog: 0,
      };
      const orders = permutations(['Send', 'Delivery', 'Open', 'Click', last]);
      expect(orders).toHaveLength(120);
      for (const [i, order] of orders.entries()) {
        const early = i % (order.length + 1);
        const tagged = Math.floor(i / (order.length + 1)) % 2 === 0;
        expect({ order, early, tagged, outcome: await deliverInOrder(order, early, tagged) }).toEqual({ order, early, tagged, outcome: expected });
      }
    },
  );
});
