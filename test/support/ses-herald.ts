import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client as PgClient } from 'pg';
import { Client, signupWithProject } from './api';
import { heraldDatabase, heraldPorts, HeraldProcess, removeDataDir } from './herald-process';
import { emailTag, SesServer } from './ses-server';

/**
 * `npm start` as a user runs it, on a fresh DATA_DIR with the embedded Postgres and Temporal dev
 * server, sending through the SES double: what the fault tests start, kill and start again.
 * Keeps its ports across restarts, as an operator's configuration would.
 */
export class SesHerald {
  /** The running Herald, replaced by every start. */
  herald: HeraldProcess | undefined;
  /** A connection to Herald's embedded database, replaced by every start. */
  db!: PgClient;

  private constructor(
    readonly ses: SesServer,
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {}

  /** The SES double (answering after `sesLatencyMs`), a DATA_DIR named after `name` and free ports; nothing started yet. */
  static async create(name: string, sesLatencyMs: number): Promise<SesHerald> {
    const ses = await SesServer.start();
    ses.latencyMs = sesLatencyMs;
    const dataDir = mkdtempSync(path.join(tmpdir(), `herald-${name}-`));
    return new SesHerald(ses, dataDir, {
      ...(await heraldPorts()),
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: '',
      SES_REGION: 'us-east-1',
      SES_ENDPOINT: ses.endpoint,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      TEMPORAL_TASK_QUEUE: 'herald',
    });
  }

  /** Node options every start puts before Herald's own (a bench's `--cpu-prof`). */
  nodeArgs: string[] = [];

  /** Herald's API address. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  /** Runs `npm start` (writing its output to `logName` in DATA_DIR) and connects to its database. */
  async start(logName = 'herald-output.log'): Promise<HeraldProcess> {
    await this.db?.end().catch(() => undefined);
    this.herald = await HeraldProcess.start(this.env, path.join(this.dataDir, logName), this.nodeArgs);
    this.db = await heraldDatabase(this.dataDir, this.env.EMBEDDED_POSTGRES_PORT);
    return this.herald;
  }

  /** Closes the database connection before a kill, so the test does not hold a connection to a dying server. */
  async disconnect(): Promise<void> {
    await this.db?.end().catch(() => undefined);
  }

  /** Signs up, makes a project with a verified sender `domain`, and answers the project and a client with its secret key. */
  async projectWithDomain(name: string, domain: string) {
    const { project } = await signupWithProject({ url: this.apiUrl }, name);
    await this.db.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [project.id, domain]);
    return { project, key: project.secretKey as string, client: new Client(this.apiUrl) };
  }

  /** How many messages SES holds per Herald email id, for the messages tagged with `projectId`. */
  messagesPerEmail(projectId: string): Map<string, number> {
    const perEmail = new Map<string, number>();
    for (const email of this.ses.emails) {
      if (emailTag(email, 'projectId') !== projectId) continue;
      const id = emailTag(email, 'emailId')!;
      perEmail.set(id, (perEmail.get(id) ?? 0) + 1);
    }
    return perEmail;
  }

  /** Stops Herald, prints the end of what it said (to read when a step failed), and removes everything. */
  async close(): Promise<void> {
    await this.disconnect();
    await this.herald?.stop();
    // Herald logs warnings and errors only.
    if (this.herald) process.stderr.write(`Herald's output:\n${this.herald.output().slice(-6000)}\n`);
    await this.ses.close();
    removeDataDir(this.dataDir);
  }
}
