import { endpoint, type RouteTable } from '../http/endpoint';
import { cursorPage, cursorParams } from '../http/pagination';
import { uuidPathId } from '../http/validate';
import type { WebhookEndpoint } from '../entities/webhook';
import type { DeliveryCursor, DeliveryRow } from './webhooks-queries';
import { CreateWebhookBody, UpdateWebhookBody, Webhook, WebhookDelivery, WebhookDeliveryListQuery } from './webhooks-dtos';
import * as docs from './webhooks-docs';

/** An endpoint as the API answers it; `withSecret` only where the secret is handed out (create, rotate). */
function webhookView(endpoint: WebhookEndpoint, withSecret = false) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    ...(withSecret ? { secret: endpoint.secret } : {}),
    failingSince: endpoint.failingSince,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

/** A delivery as the API answers it. */
function deliveryView({ delivery, eventType }: DeliveryRow) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt,
    deliveredAt: delivery.deliveredAt,
  };
}

/** The `{id}` of a webhook path: anything but a UUID names no endpoint (404). */
const webhookId = (params: Record<string, string>) => uuidPathId(params.id, 'Webhook endpoint');

/** Event webhooks (`/webhooks`): endpoints, their deliveries, a test event, secret rotation; secret key. */
export const webhooksRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Webhook, WebhookDelivery],
  endpoints: [
    endpoint<CreateWebhookBody>({
      method: 'post',
      path: '/webhooks',
      credential: 'secret',
      body: CreateWebhookBody,
      doc: docs.createWebhook,
      handle: async ({ services, project, body }) => webhookView(await services.webhooks.create(project.id, body), true),
    }),
    endpoint({
      method: 'get',
      path: '/webhooks',
      credential: 'secret',
      doc: docs.listWebhooks,
      handle: async ({ services, project }) => (await services.webhooks.list(project.id)).map((row) => webhookView(row)),
    }),
    endpoint({
      method: 'get',
      path: '/webhooks/{id}',
      credential: 'secret',
      doc: docs.getWebhook,
      handle: async ({ services, project, params }) => webhookView(await services.webhooks.get(project.id, webhookId(params))),
    }),
    endpoint<UpdateWebhookBody>({
      method: 'patch',
      path: '/webhooks/{id}',
      credential: 'secret',
      body: UpdateWebhookBody,
      doc: docs.updateWebhook,
      handle: async ({ services, project, params, body }) => webhookView(await services.webhooks.update(project.id, webhookId(params), body)),
    }),
    endpoint({
      method: 'delete',
      path: '/webhooks/{id}',
      credential: 'secret',
      doc: docs.deleteWebhook,
      handle: async ({ services, project, params }) => {
        await services.webhooks.remove(project.id, webhookId(params));
        return { success: true };
      },
    }),
    endpoint<undefined, WebhookDeliveryListQuery>({
      method: 'get',
      path: '/webhooks/{id}/deliveries',
      credential: 'secret',
      query: WebhookDeliveryListQuery,
      doc: docs.listWebhookDeliveries,
      handle: async ({ services, project, params, query, cursors }) => {
        const id = webhookId(params);
        const page = cursorParams(query, cursors.for<DeliveryCursor>('webhook-deliveries'));
        const { rows, countTotal } = await services.webhooks.deliveries(project.id, id, page);
        const result = await cursorPage(rows, page, (row) => row.position, countTotal);
        return { ...result, data: result.data.map(deliveryView) };
      },
    }),
    endpoint({
      method: 'post',
      path: '/webhooks/{id}/test',
      credential: 'secret',
      doc: docs.testWebhook,
      handle: async ({ services, project, params }) => deliveryView(await services.webhooks.sendTest(project.id, webhookId(params))),
    }),
    endpoint({
      method: 'post',
      path: '/webhooks/{id}/rotate-secret',
      credential: 'secret',
      doc: docs.rotateWebhookSecret,
      handle: async ({ services, project, params }) => webhookView(await services.webhooks.rotateSecret(project.id, webhookId(params)), true),
    }),
  ],
};
