/**
 * The task queue of the `hook/...` webhook delivery workflows and their activities, beside the
 * main one (TEMPORAL_TASK_QUEUE), so that endpoints that answer slowly or never hold only the
 * webhook worker's capped activity slots, never those of email delivery.
 */
export function webhookTaskQueue(taskQueue: string): string {
  return `${taskQueue}-webhooks`;
}
