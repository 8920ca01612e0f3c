import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { composeCore, createServices } from '../../src/composition';
import { startSmtpRelay } from '../../src/smtp-relay/relay-start';
import { projectWithVerifiedDomain, startApi } from '../support/api';

describe('SMTP relay beside the API', () => {
  it("sends through the services the process gave it (the app's), not a set of its own", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-relay-services-'));
    const api = await startApi({ env: { DATA_DIR: dataDir, SMTP_RELAY_HOST: '127.0.0.1' } });
    // Without Temporal a SendService of the relay's own could not start the delivery and would answer 451.
    const core = composeCore(api.config, api.dataSource, undefined);
    const services = createServices(core);
    const sent = jest.spyOn(services.send, 'send').mockResolvedValue([{ contact: { id: 'contact-1', email: 'shared@example.com' }, email: 'email-1', status: 'QUEUED' }]);
    const relay = await startSmtpRelay({ ...core, services }, 0);
    try {
      const { project, key, domain } = await projectWithVerifiedDomain(api);
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: relay.port, secure: false, ignoreTLS: true, auth: { user: 'herald', pass: key } });
      const answer = await transport.sendMail({ from: `app@mail.${domain}`, to: 'shared@example.com', subject: 'Shared', text: 'one service graph' });
      expect(answer.response).toBe('250 OK: 1 queued; emails email-1');
      expect(sent).toHaveBeenCalledTimes(1);
      expect(sent.mock.calls[0][0]).toBe(project.id);
      expect(sent.mock.calls[0][1]).toMatchObject({ to: [{ email: 'shared@example.com' }], subject: 'Shared' });
    } finally {
      await relay.close();
      await api.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
