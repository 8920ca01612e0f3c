import type { Client } from '@temporalio/client';
import type { SearchAttributeType } from '../../temporal/dev-server';
import { logger } from '../logger';
import { GrpcStatus, grpcCode } from './grpc-status';

/**
 * The custom search attributes Herald sets on `wf-exec/<executionId>` workflows, so that an
 * operator can find a contact's or a workflow's executions in the Temporal UI, e.g.
 * `HeraldContactEmail = "ada@example.com"`. The dev server registers them at start
 * (`--search-attribute`); other servers get them on first use through the operator API.
 */
export const HERALD_SEARCH_ATTRIBUTES = {
  HeraldProjectId: 'Keyword',
  HeraldWorkflowId: 'Keyword',
  HeraldContactEmail: 'Keyword',
} as const satisfies Record<string, SearchAttributeType>;

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD */
const INDEXED_VALUE_TYPE_KEYWORD = 2;
/** How long a server that refused the attributes is left alone before asking again. */
const RETRY_AFTER_MS = 60_000;

/**
 * Registers Herald's search attributes on the client's namespace where missing; true once they
 * are all there. False, with a warning, when the server does not let them be added (a managed
 * cluster without operator access): executions then start without search attributes.
 */
export async function ensureSearchAttributes(client: Client): Promise<boolean> {
  const { operatorService } = client.connection;
  const namespace = client.options.namespace;
  let missing: string[] = Object.keys(HERALD_SEARCH_ATTRIBUTES);
  try {
    const { customAttributes } = await operatorService.listSearchAttributes({ namespace });
    missing = missing.filter((name) => !(name in (customAttributes ?? {})));
  } catch (err) {
    // The Java test server cannot list search attributes but can add them.
    if (grpcCode(err) !== GrpcStatus.UNIMPLEMENTED) return refused(err);
  }
  for (const name of missing) {
    try {
      await operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: INDEXED_VALUE_TYPE_KEYWORD } });
    } catch (err) {
      if (grpcCode(err) !== GrpcStatus.ALREADY_EXISTS) return refused(err);
    }
  }
  return true;
}

function refused(err: unknown): false {
  logger.warn(
    { err },
    `Could not register the Temporal search attributes ${Object.keys(HERALD_SEARCH_ATTRIBUTES).join(', ')}; ` +
      'workflow executions start without them (register them with `temporal operator search-attribute create`)',
  );
  return false;
}

const known = new WeakMap<Client, { ready: Promise<boolean>; at: number }>();

/** Whether executions started through this client can carry the search attributes; asks the server once (again a minute after a refusal). */
export async function searchAttributesReady(client: Client): Promise<boolean> {
  const entry = known.get(client);
  if (entry && (Date.now() - entry.at < RETRY_AFTER_MS || (await entry.ready))) return entry.ready;
  const ready = ensureSearchAttributes(client).catch(() => false);
  known.set(client, { ready, at: Date.now() });
  return ready;
}

/** Forgets what the server said, after it refused a start that carried the attributes. */
export function forgetSearchAttributes(client: Client): void {
  known.set(client, { ready: Promise.resolve(false), at: Date.now() });
}
