import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { WEBHOOK_TIMEOUT_MS, WebhookSender } from '../src/webhooks/webhook-sender';

/** The input of a webhook delivery workflow: the delivery row it carries out. */
export interface WebhookDeliveryInput {
  deliveryId: string;
}

/** The error type of an attempt that failed and is retried by the activity's retry policy. */
const WEBHOOK_ATTEMPT_FAILED = 'WebhookAttemptFailed';

/** Activities of the webhook delivery workflow; `timeoutMs` shortens the POST timeout in tests. */
export function createWebhookActivities(deps: { dataSource: DataSource; config: Pick<Config, 'webhookAllowPrivate'>; timeoutMs?: number }) {
  const sender = new WebhookSender(deps.dataSource, { allowPrivate: deps.config.webhookAllowPrivate, timeoutMs: deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS });
  return {
    /**
     * One attempt of a delivery, numbered `before` + Temporal's attempt (attempts made before this
     * activity, as a local one); throws a retryable failure when the endpoint did not answer 2xx,
     * so that Temporal's retry policy spaces the attempts. Answers how the delivery ended otherwise.
     */
    async deliverWebhook(input: WebhookDeliveryInput, before = 0): Promise<'DELIVERED' | 'FAILED' | 'GONE'> {
      const outcome = await sender.attempt(input.deliveryId, before + Context.current().info.attempt);
      if ('retry' in outcome) throw ApplicationFailure.retryable(outcome.retry, WEBHOOK_ATTEMPT_FAILED);
      return outcome.done;
    },

    /** Ends a delivery whose attempts ran out as FAILED. */
    async failWebhookDelivery(input: WebhookDeliveryInput & { reason: string }): Promise<void> {
      await sender.giveUp(input.deliveryId, input.reason);
    },
  };
}
