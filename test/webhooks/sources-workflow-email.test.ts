import type { DataSource } from 'typeorm';
import { workflowEmailId } from '../../src/automations/email-ids';
import { startExecution, type EngineDeps } from '../../src/automations/start-execution';
import { createContact, createProject, createWorkflow, startEngine, until, type TestEngine } from '../automations/fixtures';
import { addEndpoint, recordedEvents } from './sources-support';

describe('email.suppressed from a SEND_EMAIL step', () => {
  let engine: TestEngine;
  let dataSource: DataSource;
  let deps: EngineDeps;
  let projectId: string;
  let domain: string;

  beforeAll(async () => {
    engine = await startEngine('wf-hooks');
    ({ dataSource, deps } = engine);
    ({ projectId, domain } = await createProject(dataSource));
    await addEndpoint(dataSource, projectId, ['email.suppressed']);
  });
  afterAll(() => engine?.close());

  it('records email.suppressed with the workflow and the email id the step would have sent, once', async () => {
    const { workflowId, stepIds } = await createWorkflow(dataSource, projectId, {
      steps: [{ key: 'send', type: 'SEND_EMAIL', config: { subject: 'Receipt', body: '<p>Paid</p>', from: `billing@${domain}`, type: 'TRANSACTIONAL' } }],
    });
    const { contactId, email } = await createContact(dataSource, projectId);
    await dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'BOUNCE')`, [projectId, email]);
    const started = (await startExecution(deps, { projectId, workflowId, contactId }))!;
    await until(
      async () => (await dataSource.query('SELECT status FROM workflow_executions WHERE id = $1', [started.id]))[0].status,
      (status) => status === 'COMPLETED',
    );
    const emailId = workflowEmailId(started.id, stepIds.send);
    expect(await recordedEvents(dataSource, projectId)).toEqual([
      {
        type: 'email.suppressed',
        data: { emailId, contactId, to: email, subject: 'Receipt', workflowId },
        key: `email:${emailId}:email.suppressed`,
      },
    ]);
  });
});
