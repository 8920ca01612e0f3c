import { workflowEmailId } from '../../src/automations/email-ids';
import { startExecution } from '../../src/automations/start-execution';
import { createContact, createWorkflow, until } from '../automations/fixtures';
import { useEngineProject } from '../support/stack';
import { addEndpoint, recordedEvents } from './sources-support';

describe('email.suppressed from a SEND_EMAIL step', () => {
  const given = useEngineProject('wf-hooks');

  beforeAll(async () => {
    await addEndpoint(given.dataSource, given.projectId, ['email.suppressed']);
  });

  it('records email.suppressed with the workflow and the email id the step would have sent, once', async () => {
    const { workflowId, stepIds } = await createWorkflow(given.dataSource, given.projectId, {
      steps: [{ key: 'send', type: 'SEND_EMAIL', config: { subject: 'Receipt', body: '<p>Paid</p>', from: `billing@${given.domain}`, type: 'TRANSACTIONAL' } }],
    });
    const { contactId, email } = await createContact(given.dataSource, given.projectId);
    await given.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'BOUNCE')`, [given.projectId, email]);
    const started = (await startExecution(given.deps, { projectId: given.projectId, workflowId, contactId }))!;
    await until(
      async () => (await given.dataSource.query('SELECT status FROM workflow_executions WHERE id = $1', [started.id]))[0].status,
      (status) => status === 'COMPLETED',
    );
    const emailId = workflowEmailId(started.id, stepIds.send);
    expect(await recordedEvents(given.dataSource, given.projectId)).toEqual([
      {
        type: 'email.suppressed',
        data: { emailId, contactId, to: email, subject: 'Receipt', workflowId },
        key: `email:${emailId}:email.suppressed`,
      },
    ]);
  });
});
