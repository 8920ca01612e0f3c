import { isIP } from 'node:net';
import path from 'node:path';
import type { WorkflowBundleMode } from './orchestration/workflow-bundle';
import { PACKAGE_ROOT } from './runtime/module-form';
import { storedSecrets } from './runtime/stored-secrets';

/** Delivery transport chosen from configuration. */
export type Transport = 'ses' | 'smtp' | 'outbox';

export interface Config {
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  embeddedPostgresPort: number;
  /** See embeddedPostgresSharedBuffers. */
  embeddedPostgresSharedBuffers: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalPort: number;
  temporalUiPort: number;
  temporalCliPath: string | undefined;
  taskQueue: string;
  /** WORKFLOW_BUNDLE: where the worker's workflow code comes from (see src/orchestration/workflow-bundle.ts). */
  workflowBundle: WorkflowBundleMode;
  transport: Transport;
  sesRegion: string | undefined;
  sesEndpoint: string | undefined;
  sesConfigurationSet: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  mailEventsSecret: string;
  mailEventsSecretGenerated: boolean;
  mailEventsVerifySns: boolean;
  dnsServers: string[];
  webhookAllowPrivate: boolean;
  /** WEBHOOK_CONCURRENCY: webhook delivery attempts a worker process runs at once at most (on the webhook task queue). */
  webhookConcurrency: number;
  /** WORKFLOW_TASK_CONCURRENCY: workflow tasks a worker process runs at once at most on the main task queue. */
  workflowTaskConcurrency: number;
  rateLimitPerMinute: number;
  /** Requests per client address per minute to the sign-in and account-email endpoints of `/auth`. */
  authRateLimitPerMinute: number;
  /** Express's `trust proxy`: which peers' `X-Forwarded-For` names the client address. */
  trustProxy: boolean | number | string;
  idempotencyTtlHours: number;
  disableSignups: boolean;
  /** ADMIN_EMAILS: operators' accounts (lower case), who may lift any project's suspension once their email is verified. */
  adminEmails: string[];
  segmentRecomputeMinutes: number;
  sessionSecret: string;
  tokenSecret: string;
  uploadsDir: string;
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
  /** Where the Stripe client sends its requests; unset = Stripe itself. */
  stripeApi: StripeApi | undefined;
  /** The price a checkout subscribes to when the request names none. */
  stripePriceId: string | undefined;
  sendRatePerSecond: number | undefined;
  /** The SMTP relay (CONTRACT 16): its port and TLS material. */
  smtpRelay: SmtpRelayConfig;
  /** OAuth sign-in; a provider is present only when its client id and secret are both set. */
  oauth: OAuthConfig;
  logLevel: string;
  version: string;
}

/** SMTP_RELAY_*: where the SMTP relay listens and the certificate its STARTTLS presents. */
export interface SmtpRelayConfig {
  /** SMTP_RELAY_PORT: unset = off, except under `npm start` (2587); `off` turns it off there too. */
  port: number | 'off' | undefined;
  /** SMTP_RELAY_HOST: the address to listen on (all interfaces when unset). */
  host: string | undefined;
  /** SMTP_RELAY_TLS_CERT and SMTP_RELAY_TLS_KEY: PEM files; unset = a self-signed pair generated under DATA_DIR. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** SMTP_RELAY_ALLOW_INSECURE: AUTH without TLS from any address, not only loopback. */
  allowInsecure: boolean;
}

/** The Stripe API endpoint, as the `stripe` client takes it. */
export interface StripeApi {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/** An OAuth app registered with a provider. */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

/** GitHub sign-in: `oauthUrl` serves /login/oauth/*, `apiUrl` the REST API (both differ on GitHub Enterprise). */
export interface GithubOAuth extends OAuthClient {
  oauthUrl: string;
  apiUrl: string;
}

/** Google sign-in: the authorize base, the token endpoint and the userinfo base. */
export interface GoogleOAuth extends OAuthClient {
  oauthUrl: string;
  tokenUrl: string;
  apiUrl: string;
}

export interface OAuthConfig {
  github: GithubOAuth | undefined;
  google: GoogleOAuth | undefined;
}

/** A configuration value that cannot be used; start-up stops with its message. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback?: string): string | undefined {
  const raw = str(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** An http(s) URL, without its trailing slash. */
function httpUrl(env: Env, name: string, fallback: string): string {
  const value = url(env, name, fallback)!;
  if (!/^https?:$/.test(new URL(value).protocol)) throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  return value;
}

/** The client id and secret of an OAuth app (`<PREFIX>_CLIENT_ID`, `<PREFIX>_CLIENT_SECRET`): both or neither. */
function oauthClient(env: Env, prefix: string): OAuthClient | undefined {
  const [idName, secretName] = [`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`];
  const clientId = str(env, idName);
  const clientSecret = str(env, secretName);
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined || clientSecret === undefined) {
    const [missing, present] = clientId === undefined ? [idName, secretName] : [secretName, idName];
    throw new ConfigError(`${missing} must be set when ${present} is (a provider needs both to enable sign-in)`);
  }
  return { clientId, clientSecret };
}

/** The OAuth providers with both credentials set, and the endpoints each calls (overridable for GitHub Enterprise or a test double). */
function oauthConfig(env: Env): OAuthConfig {
  const github = oauthClient(env, 'GITHUB');
  const google = oauthClient(env, 'GOOGLE');
  const githubEndpoints = {
    oauthUrl: httpUrl(env, 'GITHUB_OAUTH_URL', 'https://github.com'),
    apiUrl: httpUrl(env, 'GITHUB_API_URL', 'https://api.github.com'),
  };
  const googleEndpoints = {
    oauthUrl: httpUrl(env, 'GOOGLE_OAUTH_URL', 'https://accounts.google.com'),
    tokenUrl: httpUrl(env, 'GOOGLE_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    apiUrl: httpUrl(env, 'GOOGLE_API_URL', 'https://openidconnect.googleapis.com'),
  };
  return {
    github: github && { ...github, ...githubEndpoints },
    google: google && { ...google, ...googleEndpoints },
  };
}

/** An http(s) origin with no path, split the way the `stripe` client takes it. */
function stripeApi(env: Env, name: string): StripeApi | undefined {
  const raw = url(env, name);
  if (raw === undefined) return undefined;
  const parsed = new URL(raw);
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.pathname !== '/' || parsed.search || parsed.username) {
    throw new ConfigError(`${name} must be an http(s) origin such as https://api.stripe.com, got "${raw}"`);
  }
  const protocol = parsed.protocol === 'https:' ? 'https' : 'http';
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : protocol === 'https' ? 443 : 80,
    protocol,
  };
}

/** A comma-separated list of email addresses, in lower case. */
function emails(env: Env, name: string): string[] {
  const entries = (str(env, name) ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const bad = entries.find((entry) => !/^[^\s@]+@[^\s@]+$/.test(entry));
  if (bad !== undefined) throw new ConfigError(`${name} must be a comma-separated list of email addresses, got "${bad}"`);
  return entries;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** `TRUST_PROXY` as Express takes it: true, false, a number of hops, or addresses, CIDRs and named ranges. */
function trustProxy(env: Env): boolean | number | string {
  const raw = str(env, 'TRUST_PROXY') ?? 'loopback';
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  for (const entry of raw.split(',').map((s) => s.trim())) {
    const [address, prefix, extra] = entry.split('/');
    const cidr = isIP(address) !== 0 && extra === undefined && (prefix === undefined || /^\d{1,3}$/.test(prefix));
    if (!cidr && !PROXY_NAMES.includes(entry)) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, CIDRs and ${PROXY_NAMES.join(', ')}; got "${entry}"`,
      );
    }
  }
  return raw;
}

function hostPorts(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!/^[^\s:]+(:\d{1,5})?$/.test(entry) && !/^\[[0-9a-f:]+\](:\d{1,5})?$/i.test(entry)) {
      throw new ConfigError(`${name} must be a comma-separated list of host:port, got "${entry}"`);
    }
  }
  return entries;
}

/** SMTP_RELAY_*: the port (or `off`), the address, a certificate and key given together, and whether AUTH without TLS is allowed. */
function smtpRelay(env: Env): SmtpRelayConfig {
  const rawPort = str(env, 'SMTP_RELAY_PORT');
  const port = rawPort?.toLowerCase() === 'off' ? 'off' : rawPort === undefined ? undefined : int(env, 'SMTP_RELAY_PORT', 0, 1);
  if (typeof port === 'number' && port > 65535) throw new ConfigError(`SMTP_RELAY_PORT must be a port (1 to 65535) or off, got "${rawPort}"`);
  const certFile = str(env, 'SMTP_RELAY_TLS_CERT');
  const keyFile = str(env, 'SMTP_RELAY_TLS_KEY');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('SMTP_RELAY_TLS_CERT and SMTP_RELAY_TLS_KEY must be set together (or neither, for a generated self-signed pair)');
  }
  return {
    port,
    host: str(env, 'SMTP_RELAY_HOST'),
    tls: certFile && keyFile ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) } : undefined,
    allowInsecure: bool(env, 'SMTP_RELAY_ALLOW_INSECURE', false),
  };
}

/** The shared_buffers Postgres takes at least (fewer buffers run out under load) and at most (2^30 - 1 blocks of 8 kB). */
const SHARED_BUFFERS_MB = { least: 16, most: 8_388_607 };

/**
 * EMBEDDED_POSTGRES_SHARED_BUFFERS: the embedded Postgres's shared_buffers in whole megabytes or
 * gigabytes (`64MB`, `1GB`), as Postgres reads it; unset = its default (src/db/embedded.ts).
 */
export function embeddedPostgresSharedBuffers(env: Env = process.env): string | undefined {
  const name = 'EMBEDDED_POSTGRES_SHARED_BUFFERS';
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const size = /^([1-9]\d{0,6})(MB|GB)$/.exec(raw);
  const mb = size ? Number(size[1]) * (size[2] === 'GB' ? 1024 : 1) : NaN;
  if (!(mb >= SHARED_BUFFERS_MB.least && mb <= SHARED_BUFFERS_MB.most)) {
    throw new ConfigError(`${name} must be a size from ${SHARED_BUFFERS_MB.least}MB to ${SHARED_BUFFERS_MB.most}MB such as 64MB or 1GB, got "${raw}"`);
  }
  return raw;
}

const WORKFLOW_BUNDLE_MODES: readonly WorkflowBundleMode[] = ['auto', 'prebuilt', 'build'];

/** WORKFLOW_BUNDLE: auto (default), prebuilt or build. */
function workflowBundleMode(env: Env): WorkflowBundleMode {
  const value = str(env, 'WORKFLOW_BUNDLE') ?? 'auto';
  if (!(WORKFLOW_BUNDLE_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(`WORKFLOW_BUNDLE must be one of ${WORKFLOW_BUNDLE_MODES.join(', ')}, got "${value}"`);
  }
  return value as WorkflowBundleMode;
}

/** Reads and validates the whole configuration from an environment. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 1);
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? '.data');
  const secrets = storedSecrets(dataDir);
  const sesRegion = str(env, 'SES_REGION');
  const smtpUrl = url(env, 'SMTP_URL');
  const mailEventsSecret = str(env, 'MAIL_EVENTS_SECRET');
  const sendRate = str(env, 'SEND_RATE_PER_SECOND');
  if (sendRate !== undefined && !(Number(sendRate) > 0)) {
    throw new ConfigError(`SEND_RATE_PER_SECOND must be a positive number, got "${sendRate}"`);
  }
  const temporalAddress = str(env, 'TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined && !/^[^\s:]+:\d{1,5}$/.test(temporalAddress)) {
    throw new ConfigError(`TEMPORAL_ADDRESS must be host:port, got "${temporalAddress}"`);
  }
  return {
    port,
    publicUrl: url(env, 'PUBLIC_URL', `http://localhost:${port}`)!,
    dataDir,
    databaseUrl: url(env, 'DATABASE_URL'),
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT', 5433, 1),
    embeddedPostgresSharedBuffers: embeddedPostgresSharedBuffers(env),
    temporalAddress,
    temporalNamespace: str(env, 'TEMPORAL_NAMESPACE') ?? 'default',
    temporalPort: int(env, 'TEMPORAL_PORT', 7233, 1),
    temporalUiPort: int(env, 'TEMPORAL_UI_PORT', 8233, 1),
    temporalCliPath: str(env, 'TEMPORAL_CLI_PATH'),
    taskQueue: str(env, 'TEMPORAL_TASK_QUEUE') ?? 'herald',
    workflowBundle: workflowBundleMode(env),
    transport: sesRegion ? 'ses' : smtpUrl ? 'smtp' : 'outbox',
    sesRegion,
    sesEndpoint: url(env, 'SES_ENDPOINT'),
    sesConfigurationSet: str(env, 'SES_CONFIGURATION_SET'),
    smtpUrl,
    mailFrom: str(env, 'MAIL_FROM') ?? 'Herald <no-reply@herald.localhost>',
    mailEventsSecret: mailEventsSecret ?? secrets.mailEventsSecret,
    mailEventsSecretGenerated: mailEventsSecret === undefined,
    mailEventsVerifySns: bool(env, 'MAIL_EVENTS_VERIFY_SNS', false),
    dnsServers: hostPorts(env, 'DNS_SERVERS'),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 20, 1),
    workflowTaskConcurrency: int(env, 'WORKFLOW_TASK_CONCURRENCY', 200, 2),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 1000, 1),
    authRateLimitPerMinute: int(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 300, 1),
    trustProxy: trustProxy(env),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1),
    disableSignups: bool(env, 'DISABLE_SIGNUPS', false),
    adminEmails: emails(env, 'ADMIN_EMAILS'),
    segmentRecomputeMinutes: int(env, 'SEGMENT_RECOMPUTE_MINUTES', 15, 1),
    sessionSecret: str(env, 'SESSION_SECRET') ?? secrets.sessionSecret,
    tokenSecret: str(env, 'TOKEN_SECRET') ?? secrets.tokenSecret,
    uploadsDir: path.resolve(str(env, 'UPLOADS_DIR') ?? path.join(dataDir, 'uploads')),
    stripeSecretKey: str(env, 'STRIPE_SECRET_KEY'),
    stripeWebhookSecret: str(env, 'STRIPE_WEBHOOK_SECRET'),
    stripeApi: stripeApi(env, 'STRIPE_API_BASE'),
    stripePriceId: str(env, 'STRIPE_PRICE_ID'),
    sendRatePerSecond: sendRate === undefined ? undefined : Number(sendRate),
    smtpRelay: smtpRelay(env),
    oauth: oauthConfig(env),
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    version: (require(path.join(PACKAGE_ROOT, 'package.json')) as { version: string }).version,
  };
}

/** The embedded Postgres password kept under DATA_DIR. */
export function embeddedPostgresPassword(config: Config): string {
  return storedSecrets(config.dataDir).postgresPassword;
}
