import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';
import { createMailer, OutboxMailer, SesMailer, SmtpMailer } from '../../src/mailer';

describe('createMailer', () => {
  const dataSource = createDataSource('postgres://unused@127.0.0.1/unused');
  const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: process.env.DATA_DIR, ...env });

  it('keeps messages in the outbox when neither SES nor SMTP is configured', () => {
    const mailer = createMailer(config({}), dataSource);

    expect(mailer).toBeInstanceOf(OutboxMailer);
    expect(mailer.transport).toBe('outbox');
  });

  it('sends through SMTP when SMTP_URL is set', async () => {
    const mailer = createMailer(config({ SMTP_URL: 'smtp://127.0.0.1:2525' }), dataSource);

    expect(mailer).toBeInstanceOf(SmtpMailer);
    expect(mailer.transport).toBe('smtp');
    await mailer.close?.();
  });

  it('sends through SES when SES_REGION is set, even with SMTP_URL', async () => {
    const mailer = createMailer(
      config({ SES_REGION: 'eu-west-1', SES_ENDPOINT: 'http://127.0.0.1:4566', SMTP_URL: 'smtp://127.0.0.1:2525' }),
      dataSource,
    );

    expect(mailer).toBeInstanceOf(SesMailer);
    expect(mailer.transport).toBe('ses');
    await mailer.close?.();
  });
});
