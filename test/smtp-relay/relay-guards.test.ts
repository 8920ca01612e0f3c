import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { projectWithVerifiedDomain } from '../support/api';
import { until } from '../support/wait';
import { composeCore } from '../../src/composition';
import type { Config } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { MAX_CONNECTIONS_PER_ADDRESS, MAX_UNAUTHENTICATED_PER_ADDRESS } from '../../src/smtp-relay/relay-limits';
import { startSmtpRelay, type RunningRelay } from '../../src/smtp-relay/relay-start';
import { rawAuthenticated, rawSmtp, relayTransport, replyCode, startRelayStack, type RawSmtp, type RelayStack } from './relay-stack';

/** An address of this machine that is not loopback, for connections the relay must treat as remote. */
const REMOTE = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

describe('SMTP relay guards: clear-text AUTH, slow and idle clients, memory, failed AUTH', () => {
  let stack: RelayStack;
  let key: string;
  let domain: string;
  const extra: RunningRelay[] = [];

  beforeAll(async () => {
    stack = await startRelayStack({ TEMPORAL_TASK_QUEUE: 'smtp-relay-guards-test' });
  });
  afterAll(async () => {
    await Promise.all(extra.map((relay) => relay.close()));
    await stack.close();
  });
  beforeEach(async () => {
    ({ key, domain } = await projectWithVerifiedDomain(stack.api));
  });

  const from = () => `app@mail.${domain}`;
  /** Another relay on the stack's services, listening on `host` with other settings. */
  const relayWith = async (smtpRelay: Partial<Config['smtpRelay']>, tuning: Parameters<typeof startSmtpRelay>[2] = {}) => {
    const config = { ...stack.api.config, smtpRelay: { ...stack.api.config.smtpRelay, ...smtpRelay } };
    const relay = await startSmtpRelay(composeCore(config, stack.api.dataSource, stack.temporal.client), 0, tuning);
    extra.push(relay);
    return relay;
  };

  it('neither offers AUTH nor asks for a password on a clear-text connection from another address; after STARTTLS it does', async () => {
    expect(REMOTE).toBeDefined();
    const relay = await relayWith({ host: '0.0.0.0' });
    const smtp = rawSmtp(relay.port, REMOTE, REMOTE);
    expect(await smtp.reply()).toMatch(/^220 /);
    const ehlo = await smtp.say('EHLO remote.example');
    expect(ehlo).toContain('STARTTLS');
    expect(ehlo).not.toMatch(/AUTH/);
    const login = await smtp.say('AUTH LOGIN');
    expect(login).toMatch(/^5\d\d /);
    expect(await smtp.say(`AUTH PLAIN ${Buffer.from(`\0herald\0${key}`).toString('base64')}`)).toMatch(/^5\d\d /);
    expect(await smtp.say(`MAIL FROM:<${from()}>`)).toMatch(/^530 /);
    smtp.close();

    const remote = { ...stack, relay };
    // A client that skips STARTTLS finds no AUTH to send its key with, and cannot send.
    const clear = relayTransport(remote, key, { plain: true, host: REMOTE, localAddress: REMOTE });
    expect(await replyCode(clear.sendMail({ from: from(), to: 'a@example.com', subject: 'x', text: 'y' }))).toBe(530);
    await expect(relayTransport(remote, key, { host: REMOTE, localAddress: REMOTE }).verify()).resolves.toBe(true);
    // Loopback in clear, and any address when SMTP_RELAY_ALLOW_INSECURE is set, still authenticate without TLS.
    await expect(relayTransport(remote, key, { plain: true }).verify()).resolves.toBe(true);
    const insecure = { ...stack, relay: await relayWith({ host: '0.0.0.0', allowInsecure: true }) };
    await expect(relayTransport(insecure, key, { plain: true, host: REMOTE, localAddress: REMOTE }).verify()).resolves.toBe(true);
  });

  it('closes a connection that does not authenticate in time however it trickles bytes, and any connection at the end of its session', async () => {
    const relay = await relayWith({}, { authDeadlineMs: 1_000, sessionMs: 4_000 });
    const slow = rawSmtp(relay.port);
    expect(await slow.reply()).toMatch(/^220 /);
    await slow.say('EHLO slow.example');
    const trickle = setInterval(() => slow.write('N'), 200);
    const { smtp: authed, auth } = await rawAuthenticated(relay.port, key);
    expect(auth).toMatch(/^235 /);
    try {
      await slow.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(await slow.reply()).toMatch(/^421 .*Authentication timeout/);
    // The authenticated connection outlives the deadline, then its session ends.
    expect(await authed.say('NOOP')).toMatch(/^250 /);
    await authed.closed;
    expect(await authed.reply()).toMatch(/^421 .*Session too long/);
  });

  it(`greets at most ${MAX_UNAUTHENTICATED_PER_ADDRESS} connections from one address before they authenticate and ${MAX_CONNECTIONS_PER_ADDRESS} in all; refused ones do not count`, async () => {
    const open: RawSmtp[] = [];
    const greet = async () => {
      const smtp = rawSmtp(stack.relay.port);
      open.push(smtp);
      return { smtp, greeting: await smtp.reply() };
    };
    try {
      const waiting = [];
      for (let i = 0; i < MAX_UNAUTHENTICATED_PER_ADDRESS; i += 1) waiting.push(await greet());
      expect(waiting.map(({ greeting }) => greeting.slice(0, 4))).toEqual(Array(MAX_UNAUTHENTICATED_PER_ADDRESS).fill('220 '));
      expect((await greet()).greeting).toMatch(/^421 .*not authenticated/);
      // Once they authenticate, others may connect, up to the limit for all connections.
      for (const { smtp } of waiting) {
        await smtp.say('EHLO test.example');
        expect(await smtp.say(`AUTH PLAIN ${Buffer.from(`\0herald\0${key}`).toString('base64')}`)).toMatch(/^235 /);
      }
      for (let i = MAX_UNAUTHENTICATED_PER_ADDRESS; i < MAX_CONNECTIONS_PER_ADDRESS; i += 1) {
        const { smtp, greeting, auth } = await rawAuthenticated(stack.relay.port, key);
        open.push(smtp);
        expect([greeting.slice(0, 4), auth.slice(0, 4)]).toEqual(['220 ', '235 ']);
      }
      expect((await greet()).greeting).toMatch(/^421 .*Too many connections/);
    } finally {
      open.forEach((smtp) => smtp.close());
    }
    await until(() => greet().then(({ smtp, greeting }) => (smtp.close(), greeting)), (greeting) => greeting.startsWith('220 '), 'a greeting once connections closed');
    const again = [];
    for (let i = 0; i < MAX_UNAUTHENTICATED_PER_ADDRESS; i += 1) again.push(await greet());
    expect(again.map(({ greeting }) => greeting.slice(0, 4))).toEqual(Array(MAX_UNAUTHENTICATED_PER_ADDRESS).fill('220 '));
    again.forEach(({ smtp }) => smtp.close());
  });

  it('answers 452 to a message past the process\'s budget of bytes in flight, and takes it once the budget has room', async () => {
    const relay = await relayWith({}, { bytesInFlight: 1024 * 1024 });
    const { smtp: holder, auth } = await rawAuthenticated(relay.port, key);
    expect(auth).toMatch(/^235 /);
    expect(await holder.say(`MAIL FROM:<${from()}>`)).toMatch(/^250 /);
    expect(await holder.say('RCPT TO:<holder@example.com>')).toMatch(/^250 /);
    expect(await holder.say('DATA')).toMatch(/^354 /);
    holder.write(`From: ${from()}\r\nTo: holder@example.com\r\nSubject: held\r\n\r\n${`${'x'.repeat(998)}\r\n`.repeat(900)}`);
    await until(async () => relay.bytesInFlight(), (bytes) => bytes >= 800 * 1000, 'the held message read into the budget');

    const transport = relayTransport({ ...stack, relay }, key);
    const other = { from: from(), to: 'other@example.com', subject: 'other', text: 'y'.repeat(300 * 1000) };
    expect(await replyCode(transport.sendMail(other))).toBe(452);

    holder.write('\r\n.\r\n');
    expect(await holder.reply()).toMatch(/^250 OK: 1 queued/);
    holder.close();
    expect(relay.bytesInFlight()).toBe(0);
    expect((await transport.sendMail(other)).response).toMatch(/^250 OK: 1 queued/);
  });

  it('refuses an address over its failed-AUTH budget from memory, without the database', async () => {
    const dataSource = await openDatabase(stack.api.config.databaseUrl!, 1);
    const relay = await startSmtpRelay(composeCore(stack.api.config, dataSource, stack.temporal.client), 0);
    extra.push(relay);
    const wrong = `sk_${randomBytes(20).toString('hex')}`;
    // 127.0.0.2: an address of its own, so these failures do not hold back the other tests' AUTH.
    const attempt = () => relayTransport({ ...stack, relay }, wrong, { plain: true, localAddress: '127.0.0.2' }).verify();
    const codes: number[] = [];
    for (let i = 0; i < 21; i += 1) codes.push(await replyCode(attempt()));
    expect(codes.slice(0, 20)).toEqual(Array(20).fill(535));
    expect(codes[20]).toBe(454);
    await dataSource.destroy();
    const refusal = await attempt().then(() => undefined, (err: Error & { responseCode?: number }) => err);
    expect(refusal?.responseCode).toBe(454);
    expect(refusal?.message).toContain('Too many failed authentications');
  });
});
