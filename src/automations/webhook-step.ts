import type { DataSource } from 'typeorm';
import type { ExecutionRef } from '../../workflows/shared';
import type { Config } from '../config';
import { findContact } from '../contacts/contacts-queries';
import { contactLinks } from '../contacts/links';
import type { Contact } from '../entities/contact';
import { buildScope, renderTemplate, TemplateRenderError, TemplateSyntaxError } from '../rendering/renderer';
import { PermanentStepError } from './errors';
import { workflowName } from './executions-queries';
import { sendWebhook, type WebhookResponse } from './webhook-client';

/** A WEBHOOK step's config. */
export interface WebhookConfig {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** A template string rendered for the contact; without it the default payload is sent. */
  body?: string;
}

/** How long one call may take (CONTRACT section 10). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * WEBHOOK: one call to the step's URL. The body is the step's `body` rendered like an email
 * for the contact, else the default JSON payload (CONTRACT section 14):
 * `{ event: { name, data }, contact: { id, email, subscribed, data }, workflow: { id, name }, execution: { id } }`.
 * Every attempt of a step carries the same `Idempotency-Key` (`<executionId>/<stepId>`) so that
 * receivers can drop the repeat of a call whose answer was lost.
 */
export class WebhookStep {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Pick<Config, 'webhookAllowPrivate' | 'tokenSecret' | 'publicUrl'>,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
  ) {}

  async call(execution: ExecutionRef, stepId: string, config: WebhookConfig): Promise<WebhookResponse> {
    if (typeof config.url !== 'string') throw new PermanentStepError('WEBHOOK needs a url');
    const method = (config.method ?? 'POST').toUpperCase();
    const contact = await findContact(this.dataSource.manager, execution.projectId, execution.contactId);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Herald-Webhook',
      'idempotency-key': `${execution.executionId}/${stepId}`,
    };
    for (const [name, value] of Object.entries(config.headers ?? {})) headers[name.toLowerCase()] = String(value);
    const body = method === 'GET' || method === 'HEAD' ? undefined : await this.body(execution, contact, config.body);
    return sendWebhook({ url: config.url, method, headers, body }, { allowPrivate: this.config.webhookAllowPrivate, timeoutMs: this.timeoutMs });
  }

  private async body(execution: ExecutionRef, contact: Contact | null, template: string | undefined): Promise<string> {
    if (typeof template === 'string') {
      const scope = buildScope({
        email: contact?.email ?? '',
        data: contact?.data ?? {},
        transient: { ...execution.eventData, ...execution.context },
        links: contact ? contactLinks(this.config, contact.id) : undefined,
      });
      try {
        return renderTemplate(template, scope);
      } catch (err) {
        if (err instanceof TemplateSyntaxError || err instanceof TemplateRenderError) throw new PermanentStepError(`WEBHOOK body: ${err.message}`);
        throw err;
      }
    }
    const name = await workflowName(this.dataSource.manager, execution.projectId, execution.workflowId);
    return JSON.stringify({
      event: { name: execution.eventName ?? null, data: execution.eventData ?? {} },
      contact: contact ? { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data } : null,
      workflow: { id: execution.workflowId, name: name ?? null },
      execution: { id: execution.executionId },
    });
  }
}
