import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { DataSource } from 'typeorm';
import { clientAddress } from '../http/client-address';
import { findKeys } from '../projects/api-keys';
import { take, type Budget } from '../rate-limits/sliding-budget';
import { smtpReply, type SmtpReply } from './relay-replies';

/** The one username the relay takes; the password is the project's secret key. */
export const RELAY_USERNAME = 'herald';

/** Failed AUTH attempts one client address may make in 15 minutes, across every process. */
const FAILED_AUTH: Budget = { name: 'smtp-auth-failures', limit: 20, seconds: 15 * 60 };
/** Failed AUTH attempts after which the relay closes the connection. */
export const FAILED_AUTH_PER_CONNECTION = 3;

/** The project an SMTP session sends for, with the key it authenticated with (checked again for each message). */
export interface RelayProject {
  id: string;
  name: string;
  secretKey: string;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether a client address is on the loopback interface (IPv4-mapped forms included). */
export function isLoopback(remoteAddress: string): boolean {
  const address = remoteAddress.replace(/%.*$/, '').toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  return family !== undefined && LOOPBACK.check(address, family);
}

/**
 * Whether AUTH PLAIN or LOGIN (a password in clear) may go over a connection: once it is
 * TLS, from loopback, or anywhere when SMTP_RELAY_ALLOW_INSECURE is set.
 */
export function plainAuthAllowed(connection: { secure: boolean; remoteAddress: string }, allowInsecure: boolean): boolean {
  return connection.secure || allowInsecure || isLoopback(connection.remoteAddress);
}

const invalid = () => smtpReply(535, 'Authentication failed: use username "herald" and the project\'s secret key (sk_...) as password');

/**
 * Checks a key the way the API's key authentication does, in the database every time: a
 * public key, an unknown, rotated or deleted key gets 535; a disabled project 535 naming it.
 */
export async function projectOfKey(dataSource: DataSource, secretKey: string): Promise<RelayProject | SmtpReply> {
  const [match] = await findKeys(dataSource.manager, [secretKey]);
  if (!match || match.kind !== 'secret') return invalid();
  if (match.disabled) return smtpReply(535, 'Authentication refused: this project is disabled');
  return { id: match.projectId, name: match.projectName, secretKey };
}

/** Client addresses whose failures one process remembers; past it the oldest is forgotten (the database still counts it). */
const REMEMBERED_ADDRESSES = 10_000;

/**
 * Failed AUTH attempts per client address as this process saw them, and addresses the shared
 * budget refused until a time: an address over its budget is refused from memory, so its
 * attempts cost no database writes.
 */
export class LocalAuthFailures {
  private readonly failures = new Map<string, number[]>();
  private readonly blocked = new Map<string, number>();

  /** Seconds until an address may try again (0: it may now). */
  retryAfter(address: string, now = Date.now()): number {
    const until = this.blocked.get(address) ?? 0;
    if (until > now) return Math.ceil((until - now) / 1000);
    this.blocked.delete(address);
    const recent = this.recent(address, now);
    if (recent.length < FAILED_AUTH.limit) return 0;
    return Math.max(1, Math.ceil((recent[0] + FAILED_AUTH.seconds * 1000 - now) / 1000));
  }

  /** Counts a failed attempt. */
  failed(address: string, now = Date.now()): void {
    this.remember(this.failures, address, [...this.recent(address, now), now].slice(-FAILED_AUTH.limit));
  }

  /** Refuses an address for `seconds` (the shared budget said so). */
  block(address: string, seconds: number, now = Date.now()): void {
    this.remember(this.blocked, address, now + seconds * 1000);
  }

  private recent(address: string, now: number): number[] {
    return (this.failures.get(address) ?? []).filter((at) => at > now - FAILED_AUTH.seconds * 1000);
  }

  private remember<T>(map: Map<string, T>, address: string, value: T): void {
    map.delete(address);
    map.set(address, value);
    if (map.size > REMEMBERED_ADDRESSES) map.delete(map.keys().next().value!);
  }
}

const tooMany = (seconds: number) => smtpReply(454, `Too many failed authentications from this address; try again in ${seconds} seconds`);

/**
 * Authenticates `herald` with a secret key. An address this process saw over its budget is
 * refused at once (`local`); otherwise each attempt is counted first in the shared budget
 * (20 failures in 15 minutes, then 454 until the window moves) and given back when it
 * succeeds, so guessing is slow across connections and processes.
 */
export async function authenticate(
  dataSource: DataSource,
  remoteAddress: string,
  username: string,
  password: string,
  local: LocalAuthFailures = new LocalAuthFailures(),
): Promise<RelayProject | SmtpReply> {
  const address = clientAddress(remoteAddress);
  const wait = local.retryAfter(address);
  if (wait > 0) return tooMany(wait);
  const attempt = await take(dataSource, FAILED_AUTH, address);
  if (!attempt.taken) {
    local.block(address, attempt.retryAfter);
    return tooMany(attempt.retryAfter);
  }
  const project = username === RELAY_USERNAME ? await projectOfKey(dataSource, password) : invalid();
  if (project instanceof Error) local.failed(address);
  else await attempt.giveBack();
  return project;
}
