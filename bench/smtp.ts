/**
 * `npm run bench:smtp`: BENCH_SMTP_MESSAGES (2,000) messages submitted to the SMTP relay over
 * BENCH_SMTP_CONNECTIONS (10) concurrent connections (nodemailer, STARTTLS and AUTH once per
 * connection, then one message after another), each to its own recipient, against the real
 * relay and API services on embedded Postgres and a real Temporal server, delivered through the
 * SES transport to a local SES v2 wire server. Prints the messages per second the relay
 * accepted (250 after DATA) and their latency, then checks every email is SENT exactly once.
 */
import nodemailer from 'nodemailer';
import { composeCore } from '../src/composition';
import { connectTemporal } from '../src/orchestration/client';
import { generatedTlsFile } from '../src/smtp-relay/relay-tls';
import { startSmtpRelay } from '../src/smtp-relay/relay-start';
import { readFileSync } from 'node:fs';
import { signupWithProject } from '../test/support/api';
import { emailTag, SesServer } from '../test/support/ses-server';
import { startBenchStack } from './stack';
import { runBench, waitFor, withScratch } from './support';

const MESSAGES = Number(process.env.BENCH_SMTP_MESSAGES ?? 2_000);
const CONNECTIONS = Number(process.env.BENCH_SMTP_CONNECTIONS ?? 10);
const DOMAIN = 'bench.example.com';
const DELIVERY_TIMEOUT_MS = 10 * 60_000;
/** The API, the relay and the worker share this one pool, as under `npm start`. */
const POOL_SIZE = 10;

/** The nearest-rank percentile of sorted latencies. */
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** Submits MESSAGES messages over CONNECTIONS kept connections; answers the accepted count, the seconds taken, latencies and failures. */
async function drive(port: number, key: string, ca: string) {
  let next = 0;
  const latencies: number[] = [];
  const failures: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        requireTLS: true,
        tls: { ca, servername: 'localhost' },
        auth: { user: 'herald', pass: key },
        pool: true,
        maxConnections: 1,
        maxMessages: Infinity,
      });
      for (let i = next++; i < MESSAGES; i = next++) {
        const sent = performance.now();
        try {
          await transport.sendMail({ from: `Bench <hello@${DOMAIN}>`, to: `user${i}@example.com`, subject: `Bench ${i}`, text: `Hello ${i}`, html: `<p>Hello ${i}</p>` });
          latencies.push(performance.now() - sent);
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
      transport.close();
    }),
  );
  return { ok: latencies.length, seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), failures };
}

function main(): Promise<boolean> {
  return withScratch('smtp', async (scratch) => {
    const ses = await SesServer.start();
    scratch.onCleanup(() => ses.close());
    process.env.AWS_ACCESS_KEY_ID = 'bench';
    process.env.AWS_SECRET_ACCESS_KEY = 'bench';
    const { url, config, dataSource } = await startBenchStack(scratch, { SES_REGION: 'us-east-1', SES_ENDPOINT: ses.endpoint, RATE_LIMIT_PER_MINUTE: '100000000' }, POOL_SIZE);
    const temporal = await connectTemporal(config.temporalAddress!, config.temporalNamespace);
    scratch.onCleanup(temporal.close);
    const relay = await startSmtpRelay(composeCore(config, dataSource, temporal.client), 0);
    scratch.onCleanup(relay.close);
    const { project } = await signupWithProject({ url }, 'SMTP bench');
    await dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, DOMAIN]);

    console.log(`Messages: ${MESSAGES.toLocaleString('en')} over ${CONNECTIONS} concurrent SMTP connections (STARTTLS, AUTH PLAIN); transport ${config.transport} (local SES)`);
    const started = performance.now();
    const run = await drive(relay.port, project.secretKey, readFileSync(generatedTlsFile(config.dataDir), 'utf8'));
    console.log(
      `SMTP relay: ${run.ok.toLocaleString('en')} messages accepted in ${run.seconds.toFixed(2)} s -> ${Math.round(run.ok / run.seconds).toLocaleString('en')} messages/s ` +
        `with ${CONNECTIONS} connections; latency p50 ${percentile(run.latencies, 50).toFixed(0)} ms, p99 ${percentile(run.latencies, 99).toFixed(0)} ms`,
    );
    if (run.failures.length) console.log(`Refused: ${run.failures.length}; first: ${run.failures[0]}`);

    const messages = () => ses.emails.filter((email) => emailTag(email, 'projectId') === project.id);
    const delivered = await waitFor(() => messages().length >= run.ok, DELIVERY_TIMEOUT_MS);
    const seconds = (performance.now() - started) / 1000;
    console.log(delivered ? `Delivery: ${run.ok.toLocaleString('en')} messages at SES ${seconds.toFixed(2)} s after the first message` : `Delivery: timed out with ${messages().length} of ${run.ok} at SES`);
    const sent = await waitFor(async () => {
      const [{ n }] = await dataSource.query(`SELECT count(*)::int AS n FROM emails WHERE project_id = $1 AND status = 'SENT'`, [project.id]);
      return n === run.ok;
    }, 30_000);
    const distinct = new Set(messages().map((email) => emailTag(email, 'emailId'))).size;
    const passed = delivered && sent && run.ok === MESSAGES && distinct === MESSAGES && messages().length === MESSAGES;
    console.log(passed ? 'Checks: every message accepted, every email SENT, one SES message per email' : `Checks FAILED: ${run.ok} accepted, ${distinct} distinct emails at SES of ${messages().length} messages, all SENT: ${sent}`);
    return passed;
  });
}

runBench(main);
