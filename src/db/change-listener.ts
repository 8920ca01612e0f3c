import { Client, type ClientConfig, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import { logger } from '../logger';

/** How long after a lost or failed listening connection the next attempt waits, at least. */
const RELISTEN_MS = 1_000;
/** How often the listening connection checks that its data source is still open. */
const OPEN_CHECK_MS = 1_000;

/**
 * A connection of its own, outside the pool, listening on one Postgres channel: what a process
 * keeps in memory of rows whose changes notify that channel stays right while `listening()`.
 * `changed` is called for every notification, when the connection is lost, and when it starts
 * listening (what was read before may have changed unannounced). The connection opens on the
 * first `listening()` and again on one after it was lost (at most once a second), and closes
 * once its data source is destroyed; it never keeps the process running.
 */
export class ChangeListener {
  private client: Client | undefined;
  private state: 'off' | 'starting' | 'on' = 'off';
  private retryAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channel: string,
    private readonly changed: () => void,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  }

  /** Whether every change is announced to this process now; when not, starts listening. */
  listening(): boolean {
    if (this.state === 'on') return true;
    if (this.state === 'off' && Date.now() >= this.retryAt && this.dataSource.isInitialized) {
      this.state = 'starting';
      this.retryAt = Date.now() + RELISTEN_MS;
      void this.connect().catch((err: unknown) => {
        logger.warn({ err, channel: this.channel }, 'cannot listen for changes; what they would announce is read every time until it can');
        if (this.client) this.stop(this.client);
        else this.state = 'off';
      });
    }
    return false;
  }

  private async connect(): Promise<void> {
    const options = (this.dataSource.driver as unknown as { master: { options: ClientConfig } }).master.options;
    const client = new Client({ ...options, keepAlive: true });
    this.client = client;
    client.on('error', () => this.stop(client));
    client.on('end', () => this.stop(client));
    client.on('notification', (message: Notification) => {
      if (message.channel === this.channel && this.client === client) this.changed();
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    if (this.client !== client) return;
    this.changed();
    this.state = 'on';
    const open = setInterval(() => {
      if (!this.dataSource.isInitialized || this.client !== client) {
        clearInterval(open);
        this.stop(client);
      }
    }, OPEN_CHECK_MS);
    open.unref();
    (client as unknown as { unref(): void }).unref();
  }

  /** Closes a listening connection; when it is the current one, nothing is announced until another listens. */
  private stop(client: Client | undefined): void {
    if (!client) return;
    if (this.client === client) {
      this.client = undefined;
      this.state = 'off';
      this.changed();
    }
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
  }
}
