import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import type { Client as TemporalClient } from '@temporalio/client';
import { createApp } from '../../src/app';
import { composeCore } from '../../src/composition';
import type { EventDispatcher } from '../../src/events/dispatcher';
import { loadConfig, type Config } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { logger } from '../../src/logger';
import { listen } from '../../src/runtime/http-server';

/** A running Herald API on a free port, backed by the test database. */
export interface TestApi {
  url: string;
  config: Config;
  dataSource: DataSource;
  dispatcher: EventDispatcher;
  close(): Promise<void>;
}

interface ApiOptions {
  /** Configuration overrides for this instance. */
  env?: Record<string, string>;
  /** A Temporal client for endpoints that start workflows. */
  temporal?: TemporalClient;
}

/** Starts the real Express app over HTTP against the test database. */
export async function startApi(options: ApiOptions = {}): Promise<TestApi> {
  const config = loadConfig({ ...process.env, ...options.env });
  logger.level = config.logLevel;
  const dataSource = await openDatabase(config.databaseUrl!, 4);
  const core = composeCore(config, dataSource, options.temporal);
  const { dispatcher } = core;
  const { server } = await listen(createApp(core), 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    dataSource,
    dispatcher,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dataSource.destroy();
    },
  };
}

/** One HTTP answer, with its JSON body parsed when it has one. */
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

interface CallOptions {
  body?: unknown;
  rawBody?: string;
  key?: string;
  headers?: Record<string, string>;
}

/** A small HTTP client that keeps the session cookie, like a browser would. */
export class Client {
  private cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined || options.rawBody !== undefined) headers['content-type'] ??= 'application/json';
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (this.cookie) headers.cookie = this.cookie;
    const response = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const [pair] = setCookie.split(';');
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: body as T };
  }

  get = <T = any>(path: string, options?: CallOptions) => this.call<T>('GET', path, options);
  post = <T = any>(path: string, body?: unknown, options?: CallOptions) => this.call<T>('POST', path, { ...options, body });
  patch = <T = any>(path: string, body?: unknown, options?: CallOptions) => this.call<T>('PATCH', path, { ...options, body });
  delete = <T = any>(path: string, options?: CallOptions) => this.call<T>('DELETE', path, options);
}

let counter = 0;

/** A unique email address for a test. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  // Random as well as counted: two Jest workers start their counters at the same value.
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}-${counter}@example.test`;
}

/** Marks the account of `email` verified, as its owner's click on the emailed link would (a membership needs it). */
export async function markEmailVerified(api: { dataSource: DataSource }, email: string): Promise<void> {
  await api.dataSource.query('UPDATE users SET email_verified = true WHERE lower(email) = lower($1)', [email]);
}

/** Signs up a new user on a fresh client and creates a project; returns the client, user and project with keys. */
export async function signupWithProject(api: { url: string }, name = 'Test project') {
  const client = new Client(api.url);
  const email = uniqueEmail();
  const signup = await client.post('/auth/signup', { email, password: 'correct horse battery' });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const project = await client.post('/users/@me/projects', { name });
  if (project.status !== 201) throw new Error(`project failed: ${project.status} ${JSON.stringify(project.body)}`);
  return { client, email, user: signup.body, project: project.body };
}

/** Like `signupWithProject`, with a VERIFIED sending domain added to the project; also answers its secret key and the domain. */
export async function projectWithVerifiedDomain(api: TestApi) {
  const signedUp = await signupWithProject(api);
  const domain = `${signedUp.project.id}.example.com`;
  await api.dataSource.query(`INSERT INTO domains (project_id, domain, status, records) VALUES ($1, $2, 'VERIFIED', '[]')`, [signedUp.project.id, domain]);
  return { ...signedUp, key: signedUp.project.secretKey as string, domain };
}
