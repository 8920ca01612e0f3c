import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { assertEmailsLeft, assertWithinEmailLimit } from '../billing/limits';
import { assertVerifiedSender } from '../domains/sender-check';
import { insertEmail } from '../sending/send-queries';
import type { Campaign } from '../entities/campaign';
import { ApiError } from '../http/errors';
import { logger } from '../logger';
import { sendCampaign } from '../../workflows/campaigns';
import { deliverEmail } from '../../workflows/delivery';
import { campaignSummary, campaignWorkflowId, emailSummary, emailWorkflowId, type SendCampaignInput } from '../../workflows/shared';
import { findCampaign, saveCampaign, stopCampaign } from './campaigns-queries';
import { ACTIVE, assertSendable, invalidState } from './campaigns-service';

/** What `POST /campaigns/{id}/send` answers. */
export interface SendOutcome {
  campaign: Campaign;
  message: string;
}

const unavailable = (err?: unknown) =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Sending is unavailable right now; try again shortly', err ? { details: { reason: (err as Error).message } } : {});

/**
 * Sending a campaign through its workflow `campaign/<id>`: now or at `scheduledFor`,
 * cancelling it, and test sends to one address.
 */
export class CampaignSending {
  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  /**
   * Sends a DRAFT campaign now (SENDING) or schedules it (SCHEDULED) when `scheduledFor` is in
   * the future. The workflow starts before the status commits: a failed start changes nothing.
   * Sending now with the project's emails cap used up is refused (403 `BILLING_LIMIT_EXCEEDED`).
   */
  async send(projectId: string, id: string, scheduledFor: Date | null): Promise<SendOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await findCampaign(manager, projectId, id, true);
      if (campaign.status !== 'DRAFT') throw invalidState(campaign, 'sent; only a DRAFT can be');
      await assertSendable(manager, projectId, campaign);
      const later = scheduledFor !== null && scheduledFor.getTime() > Date.now();
      if (!later) await assertEmailsLeft(manager, projectId);
      campaign.status = later ? 'SCHEDULED' : 'SENDING';
      campaign.scheduledFor = scheduledFor;
      campaign.stoppedReason = null;
      const saved = await saveCampaign(manager, campaign);
      await this.startWorkflow({ campaignId: id, scheduledFor: later ? scheduledFor.toISOString() : null }, campaign.name);
      return { campaign: saved, message: later ? `Campaign scheduled for ${scheduledFor.toISOString()}` : 'Campaign is being sent' };
    });
  }

  /**
   * Cancels a SCHEDULED or SENDING campaign: CANCELLED, and its emails not yet attempted
   * skipped, in one transaction that a sending batch waits for; then its workflow is cancelled.
   */
  async cancel(projectId: string, id: string): Promise<Campaign> {
    const campaign = await this.dataSource.transaction(async (manager) => {
      const found = await findCampaign(manager, projectId, id, true);
      if (!ACTIVE.includes(found.status)) throw invalidState(found, 'cancelled');
      await stopCampaign(manager, id, 'Cancelled through the API');
      return findCampaign(manager, projectId, id);
    });
    try {
      await this.temporal?.workflow.getHandle(campaignWorkflowId(id)).cancel();
    } catch (err) {
      // The stored status already stops the workflow at its next step.
      logger.warn({ err, campaignId: id }, 'could not cancel the campaign workflow');
    }
    return campaign;
  }

  /**
   * Sends the campaign to one address, subject prefixed `[Test] `, as a one-off email record
   * (source TEST, no contact, no campaign id: the campaign's counters never see it) delivered
   * by the transactional delivery workflow `email/<emailId>`. It counts against the emails cap.
   */
  async test(projectId: string, id: string, to: string): Promise<void> {
    const campaign = await findCampaign(this.dataSource.manager, projectId, id);
    await assertVerifiedSender(this.dataSource.manager, projectId, campaign.from);
    const client = this.client();
    await this.dataSource.transaction(async (manager) => {
      const email = await insertEmail(manager, {
        projectId,
        contactId: null,
        templateId: null,
        campaignId: null,
        source: 'TEST',
        type: campaign.type,
        toEmail: to.toLowerCase(),
        toName: null,
        from: campaign.from,
        fromName: campaign.fromName,
        replyTo: campaign.replyTo,
        subject: `[Test] ${campaign.subject}`,
        body: campaign.body,
        headers: {},
        variables: {},
        status: 'QUEUED',
        attempts: 0,
      });
      await assertWithinEmailLimit(manager, projectId, 1);
      await client.workflow
        .start(deliverEmail, { taskQueue: this.taskQueue, workflowId: emailWorkflowId(email.id), args: [email.id], staticSummary: emailSummary(email.toEmail, email.subject) })
        .catch((err: unknown) => {
          throw unavailable(err);
        });
    });
  }

  /**
   * Starts `campaign/<id>`. A run that is still open can only be left by a send whose
   * transaction never committed (the campaign is still DRAFT): it is replaced.
   */
  private async startWorkflow(input: SendCampaignInput, campaignName: string): Promise<void> {
    const client = this.client();
    const options = {
      taskQueue: this.taskQueue,
      workflowId: campaignWorkflowId(input.campaignId),
      args: [input] as [SendCampaignInput],
      staticSummary: campaignSummary(campaignName, input.scheduledFor),
    };
    const start = () => client.workflow.start(sendCampaign, options);
    try {
      await start().catch(async (err: unknown) => {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        await client.workflow.getHandle(options.workflowId).terminate('Replaced: the send that started it never committed');
        await start();
      });
    } catch (err) {
      throw unavailable(err);
    }
  }

  private client(): Client {
    if (!this.temporal) throw unavailable();
    return this.temporal;
  }
}
