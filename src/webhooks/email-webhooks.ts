import type { EntityManager } from 'typeorm';
import { emailEvent, emailKey, type EmailFacts } from './source-events';
import { emitWebhookEvents } from './webhook-events';

/**
 * An email an `email.*` event is about, with its project; `hooked` false when the batch that
 * loaded it found no enabled endpoint in the project (then nothing is emitted for it).
 */
export type HookedEmail = EmailFacts & { projectId: string; hooked?: boolean };

/** One email's event: the email and the event's own detail. */
export interface EmailOccurrence {
  email: HookedEmail;
  detail: Record<string, unknown>;
}

/**
 * Emits `type` (one that happens at most once to an email: `email.sent`, `email.failed`,
 * `email.suppressed`, keyed by email) for each email, one statement per project, in the caller's
 * transaction.
 */
export async function emitEmailEvents(manager: EntityManager, type: string, occurrences: EmailOccurrence[]): Promise<void> {
  const byProject = new Map<string, EmailOccurrence[]>();
  for (const occurrence of occurrences) {
    if (occurrence.email.hooked === false) continue;
    const list = byProject.get(occurrence.email.projectId) ?? [];
    byProject.set(occurrence.email.projectId, list);
    list.push(occurrence);
  }
  for (const [projectId, list] of byProject) {
    await emitWebhookEvents(manager, projectId, list.map(({ email, detail }) => emailEvent(type, email, detail, emailKey(email.id, type))));
  }
}
