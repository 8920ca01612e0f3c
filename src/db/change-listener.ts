import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, type ClientConfig, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import { logger } from '../logger';

/** How long after a lost or failed listening connection the next attempt waits, at least. */
const RELISTEN_MS = 1_000;
/** How often a probe goes out through the pool; it also checks that the data source is still open. */
const PROBE_MS = 1_000;
/** How recent the last probe to come back must be for changes to count as announced. */
const PROBE_FRESH_MS = 3_000;
/** How long connecting may take, and how long a silent connection waits before TCP keepalive probes it. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A probe's payload: changes notify the channel with an empty one. */
const PROBE_PREFIX = 'probe:';

/**
 * A connection of its own, outside the pool, listening on one Postgres channel: what a process
 * keeps in memory of rows whose changes notify that channel stays right while `listening()`.
 * Listening is proven, not assumed: every second the process notifies the channel through the
 * pool with a probe of its own, and changes count as announced only while a probe came back
 * within 3 s. A connection that died silently, a pooler that does not carry LISTEN, or a
 * listener left on another server than the pool's after a failover all stop the proof, so
 * nothing is trusted that could have been missed. `changed` is called for every change
 * notified, and whenever the proof starts or lapses (what was read before may have changed
 * unannounced). The connection opens on the first `listening()` and again on one after it was
 * lost (at most once a second), closes once its data source is destroyed, and never keeps the
 * process running.
 */
export class ChangeListener {
  private client: Client | undefined;
  private state: 'off' | 'starting' | 'on' = 'off';
  private retryAt = 0;
  private readonly probe = `${PROBE_PREFIX}${randomUUID()}`;
  private probeSeenAt = -Infinity;
  /** Whether the last `listening()` found the proof fresh: a lapse or a start calls `changed`. */
  private proven = false;
  private failing = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channel: string,
    private readonly changed: () => void,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  }

  /** Whether every change is announced to this process now; when not, starts listening. */
  listening(): boolean {
    const proven = this.state === 'on' && performance.now() - this.probeSeenAt < PROBE_FRESH_MS;
    if (proven !== this.proven) {
      this.proven = proven;
      this.changed();
    }
    if (this.state === 'off' && performance.now() >= this.retryAt && this.dataSource.isInitialized) this.start();
    return proven;
  }

  private start(): void {
    this.state = 'starting';
    this.retryAt = performance.now() + RELISTEN_MS;
    const options = (this.dataSource.driver as unknown as { master: { options: ClientConfig } }).master.options;
    const client = new Client({
      ...options,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: CONNECT_TIMEOUT_MS,
    });
    this.client = client;
    void this.listen(client).catch((err: unknown) => {
      if (!this.failing) logger.warn({ err, channel: this.channel }, 'cannot listen for changes; what they would announce is read every time until it can');
      this.failing = true;
      this.stop(client);
    });
  }

  private async listen(client: Client): Promise<void> {
    client.on('error', () => this.stop(client));
    client.on('end', () => this.stop(client));
    client.on('notification', (message: Notification) => {
      if (message.channel !== this.channel || this.client !== client) return;
      if (message.payload === this.probe) this.probeSeenAt = performance.now();
      else if (!message.payload?.startsWith(PROBE_PREFIX)) this.changed();
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    if (this.client !== client) return;
    this.state = 'on';
    if (this.failing) logger.info({ channel: this.channel }, 'listening for changes again');
    this.failing = false;
    const probing = setInterval(() => {
      if (!this.dataSource.isInitialized || this.client !== client) {
        clearInterval(probing);
        this.stop(client, 'closed');
        return;
      }
      this.sendProbe();
    }, PROBE_MS);
    probing.unref();
    this.sendProbe();
    // The connection alone keeps no process running.
    (client as unknown as { unref(): void }).unref();
  }

  /** Notifies the channel with this process's probe through the pool; its return proves the listening connection. */
  private sendProbe(): void {
    this.dataSource.query('SELECT pg_notify($1, $2)', [this.channel, this.probe]).catch(() => undefined);
  }

  /** Closes a listening connection; when it is the current one, nothing is announced until another listens. */
  private stop(client: Client, why: 'lost' | 'closed' = 'lost'): void {
    if (this.client === client) {
      if (this.state === 'on' && why === 'lost') logger.warn({ channel: this.channel }, 'the connection listening for changes was lost; what they would announce is read every time until it listens again');
      this.client = undefined;
      this.state = 'off';
      this.failing = true;
      this.changed();
    }
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
  }
}
