import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import { databaseAnswers } from './system-queries';

/** What `GET /health` reports. */
export interface Health {
  status: 'ok' | 'degraded';
  database: 'up' | 'down';
  temporal: 'up' | 'down';
}

/** Liveness and the public feature configuration. */
export class SystemService {
  constructor(private readonly deps: { config: Config; dataSource: DataSource; temporal: Client | undefined }) {}

  /** Whether the database and Temporal answer; `degraded` when the database does not. */
  async health(): Promise<Health> {
    const database = (await databaseAnswers(this.deps.dataSource)) ? 'up' : 'down';
    const temporal = this.deps.temporal
      ? await this.deps.temporal.workflowService.getSystemInfo({}).then(
          () => 'up' as const,
          () => 'down' as const,
        )
      : 'down';
    return { status: database === 'up' ? 'ok' : 'degraded', database, temporal };
  }

  /** The version and the enabled features, for the dashboard to adapt itself. */
  publicConfig() {
    const { config } = this.deps;
    return {
      version: config.version,
      features: {
        signups: !config.disableSignups,
        billing: Boolean(config.stripeSecretKey),
        oauth: { github: Boolean(config.oauth.github), google: Boolean(config.oauth.google) },
        transport: config.transport,
      },
    };
  }
}
