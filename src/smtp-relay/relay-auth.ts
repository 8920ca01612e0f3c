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

/**
 * Authenticates `herald` with a secret key. Each attempt from a client address is counted
 * first (20 failures in 15 minutes, then 454 until the window moves) and given back when
 * it succeeds, so guessing is slow across connections and processes.
 */
export async function authenticate(dataSource: DataSource, remoteAddress: string, username: string, password: string): Promise<RelayProject | SmtpReply> {
  const attempt = await take(dataSource, FAILED_AUTH, clientAddress(remoteAddress));
  if (!attempt.taken) return smtpReply(454, `Too many failed authentications from this address; try again in ${attempt.retryAfter} seconds`);
  const project = username === RELAY_USERNAME ? await projectOfKey(dataSource, password) : invalid();
  if (!(project instanceof Error)) await attempt.giveBack();
  return project;
}
