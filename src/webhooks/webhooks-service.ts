import type { DataSource } from 'typeorm';
import { refusedTarget } from '../automations/webhook-client';
import type { WebhookEndpoint } from '../entities/webhook';
import { conflict, notFound, validationError } from '../http/errors';
import type { CursorParams } from '../http/pagination';
import { newWebhookSecret } from './signature';
import { WEBHOOK_TEST_EVENT } from './webhook-events';
import * as queries from './webhooks-queries';

/** What `POST /webhooks` stores, validated by its DTO. */
export interface NewEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
}

/**
 * The rules of a project's webhook endpoints: targets that calls may reach (unless
 * WEBHOOK_ALLOW_PRIVATE), at most MAX_ENDPOINTS_PER_PROJECT, events named once, the secret
 * generated here; every read and write is of the calling project's endpoints only.
 */
export class WebhooksService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly allowPrivate: boolean,
  ) {}

  /** Creates an endpoint with a new secret. */
  async create(projectId: string, input: NewEndpointInput): Promise<WebhookEndpoint> {
    await this.checkTarget(input.url);
    const endpoint = await this.dataSource.transaction((manager) =>
      queries.insertEndpoint(manager, projectId, {
        url: input.url,
        events: distinct(input.events),
        description: input.description ?? null,
        secret: newWebhookSecret(),
      }),
    );
    if (!endpoint) {
      throw conflict(`A project has at most ${queries.MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`, 'LIMIT_EXCEEDED');
    }
    return endpoint;
  }

  /** The project's endpoints, oldest first. */
  list(projectId: string): Promise<WebhookEndpoint[]> {
    return queries.projectEndpoints(this.dataSource.manager, projectId);
  }

  /** One endpoint of the project; 404 for any other id. */
  async get(projectId: string, id: string): Promise<WebhookEndpoint> {
    return found(await queries.projectEndpoint(this.dataSource.manager, projectId, id));
  }

  /** Changes an endpoint; enabling it again forgets its failures. */
  async update(projectId: string, id: string, patch: queries.EndpointPatch): Promise<WebhookEndpoint> {
    if (patch.url !== undefined) {
      found(await queries.projectEndpoint(this.dataSource.manager, projectId, id));
      await this.checkTarget(patch.url);
    }
    const events = patch.events === undefined ? undefined : distinct(patch.events);
    return found(await queries.updateEndpoint(this.dataSource.manager, projectId, id, { ...patch, events }));
  }

  /** Deletes an endpoint with its deliveries; deliveries under way end without another attempt. */
  async remove(projectId: string, id: string): Promise<void> {
    if (!(await queries.deleteEndpoint(this.dataSource.manager, projectId, id))) throw notFound('Webhook endpoint');
  }

  /** Gives an endpoint a new secret, which signs every later attempt. */
  async rotateSecret(projectId: string, id: string): Promise<WebhookEndpoint> {
    return found(await queries.replaceSecret(this.dataSource.manager, projectId, id, newWebhookSecret()));
  }

  /**
   * Records a `webhook.test` event for this endpoint alone, delivered like any event; answers its
   * delivery. 409 `LIMIT_EXCEEDED` while queries.MAX_PENDING_TESTS of its test events are undelivered
   * (counted under the endpoint's row lock, so concurrent calls count right).
   */
  async sendTest(projectId: string, id: string): Promise<queries.DeliveryRow> {
    return this.dataSource.transaction(async (manager) => {
      if (!(await queries.lockEndpoint(manager, projectId, id))) throw notFound('Webhook endpoint');
      if ((await queries.countPendingOfType(manager, projectId, id, WEBHOOK_TEST_EVENT, queries.MAX_PENDING_TESTS)) >= queries.MAX_PENDING_TESTS) {
        throw conflict(
          `This endpoint has ${queries.MAX_PENDING_TESTS} test events not delivered yet; send another once one is delivered or failed (GET /webhooks/{id}/deliveries)`,
          'LIMIT_EXCEEDED',
        );
      }
      return queries.insertEndpointEvent(manager, projectId, id, {
        type: WEBHOOK_TEST_EVENT,
        data: { webhookId: id, message: 'A test event sent with POST /webhooks/{id}/test' },
      });
    });
  }

  /** A page of an endpoint's deliveries, newest first, with how to count them all. */
  async deliveries(projectId: string, id: string, page: CursorParams<queries.DeliveryCursor>) {
    const manager = this.dataSource.manager;
    found(await queries.projectEndpoint(manager, projectId, id));
    const rows = await queries.readDeliveries(manager, projectId, id, page.limit + 1, page.cursor);
    return { rows, countTotal: () => queries.countDeliveries(manager, projectId, id) };
  }

  /** A 422 naming `url` when calls to it would be refused. */
  private async checkTarget(url: string): Promise<void> {
    const refused = await refusedTarget(url, this.allowPrivate);
    if (refused) throw validationError([{ field: 'url', code: 'invalid_string', message: refused }]);
  }
}

/** The endpoint, or a 404 when the project has none with that id. */
function found<T>(endpoint: T | undefined): T {
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

/** The names once each, in the order first given. */
function distinct(names: string[]): string[] {
  return [...new Set(names)];
}
