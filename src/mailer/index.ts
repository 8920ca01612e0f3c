import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import { OutboxMailer } from './outbox';
import { SesMailer } from './ses';
import { SmtpMailer } from './smtp';
import type { Mailer } from './types';

export * from './types';
export { OutboxMailer } from './outbox';
export { listOutboxMessages, type OutboxQuery } from './outbox-queries';
export { SesMailer, type SesMailerOptions } from './ses';
export { SmtpMailer } from './smtp';

/** The mailer for the configured transport (`ses`, `smtp` or `outbox`). */
export function createMailer(config: Config, dataSource: DataSource): Mailer {
  switch (config.transport) {
    case 'ses':
      return new SesMailer({
        region: config.sesRegion!,
        endpoint: config.sesEndpoint,
        configurationSet: config.sesConfigurationSet,
      });
    case 'smtp':
      return new SmtpMailer(config.smtpUrl!);
    case 'outbox':
      return new OutboxMailer(dataSource);
  }
}
