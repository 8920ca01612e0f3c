import type { DataSource } from 'typeorm';
import { assertWithinContactLimit } from '../billing/limits';
import type { Contact } from '../entities/contact';
import type { EventRecord } from '../entities/event-record';
import type { EventDispatcher } from '../events/dispatcher';
import { HeldConnection } from '../db/pipelined-transaction';
import { renewHeldDispatches } from '../events/dispatches-queries';
import {
  commitWithEvents,
  completeDispatched,
  deliverDispatches,
  readHeld,
  withEvents,
  type Committed,
  type EventTransaction,
  type HeldDispatch,
  type NewEvent,
  type PendingDispatch,
} from '../events/event-store';
import { ApiError, notFound } from '../http/errors';
import type { CursorParams } from '../http/pagination';
import { assertWithinDataKeyLimit } from './data-key-limit';
import { parseDataPatch, type DataPatch } from './data-rules';
import * as queries from './contacts-queries';
import { knownFields } from './known-fields';
import { emitWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events';
import { contactEvent, storedEventKey } from '../webhooks/source-events';

/** A contact as the API shows it. */
export function contactView(contact: Contact) {
  return {
    id: contact.id,
    email: contact.email,
    subscribed: contact.subscribed,
    snoozedUntil: contact.snoozedUntil,
    data: contact.data,
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
  };
}

/** What a caller asks of one contact: its email, a `data` payload and an optional subscription state. */
export interface ContactInput {
  email: string;
  data?: Record<string, unknown>;
  subscribed?: boolean;
}

/** One contact after an upsert inside a transaction, with the request-only values of its payload. */
export interface UpsertedContact {
  outcome: queries.UpsertOutcome;
  patch: DataPatch;
}

/** Normalises an email for storage and comparison. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The webhook events of a batch upsert (the project has an enabled endpoint, so each outcome
 * carries its data): `contact.created` for a new contact, `contact.updated` for one whose data,
 * subscription or email (`renamed`) the write changed, and `contact.subscribed|unsubscribed` for
 * each flip, keyed by its stored SYSTEM event. A write that changed nothing emits nothing.
 */
function contactWebhookEvents(outcomes: queries.UpsertOutcome[], flips: EventRecord[], renamed: ReadonlySet<string>): WebhookEventInput[] {
  const flipOf = new Map(flips.map((event) => [event.contactId, event]));
  return outcomes.flatMap((outcome) => {
    const contact = { id: outcome.id, email: outcome.email, subscribed: outcome.subscribed, data: outcome.data ?? {} };
    if (outcome.isNew) return [contactEvent('contact.created', contact, `contact:${outcome.id}:created`)];
    const flip = flipOf.get(outcome.id);
    return [
      ...(outcome.changed || renamed.has(outcome.id) ? [contactEvent('contact.updated', contact)] : []),
      ...(flip ? [contactEvent(flip.name, contact, storedEventKey(flip.id))] : []),
    ];
  });
}

/** The SYSTEM events for contacts whose subscription flipped. */
function subscriptionEvents(projectId: string, outcomes: queries.UpsertOutcome[]): NewEvent[] {
  return outcomes
    .filter((outcome) => outcome.subscribedBefore !== null && outcome.subscribedBefore !== outcome.subscribed)
    .map((outcome) => ({
      projectId,
      contactId: outcome.id,
      name: outcome.subscribed ? 'contact.subscribed' : 'contact.unsubscribed',
      source: 'SYSTEM' as const,
    }));
}

/**
 * The one owner of the contact rules: `data` patching, reserved keys, type inference,
 * subscription defaults and the events a subscription flip emits. Every entry point
 * (contacts API, /v1/track, /v1/send, imports, bulk jobs, workflow steps) comes here.
 */
export class ContactsService {
  /** The connection `commit` keeps for the transactions the track writer runs one after another. */
  private readonly committer: HeldConnection;

  constructor(
    private readonly dataSource: DataSource,
    private readonly dispatcher: EventDispatcher,
  ) {
    this.committer = new HeldConnection(dataSource);
  }

  /** Runs work in a transaction whose stored events are dispatched after commit. */
  transaction<T>(work: (tx: EventTransaction) => Promise<T>): Promise<T> {
    return withEvents(this.dataSource, this.dispatcher, work);
  }

  /**
   * Runs work in a transaction and answers once it committed, with the dispatch of its stored
   * events left to the caller; these transactions run one after another on one connection kept for them.
   */
  commit<T>(work: (tx: EventTransaction) => Promise<T>): Promise<Committed<T>> {
    return commitWithEvents(this.committer.run, work);
  }

  /** Delivers what committed transactions stored, together (see deliverDispatches); true when every subscriber succeeded. */
  deliver(dispatches: PendingDispatch[]): Promise<boolean> {
    return deliverDispatches(this.dispatcher, dispatches);
  }

  /** Removes the dispatch rows of delivered transactions. */
  completeDelivered(dispatches: PendingDispatch[]): Promise<void> {
    return completeDispatched(this.dataSource, dispatches);
  }

  /** Reads back committed transactions' dispatches held by their rows' ids, in order (see readHeld). */
  readHeld(held: HeldDispatch[]): Promise<PendingDispatch[]> {
    return readHeld(this.dataSource, held);
  }

  /** Keeps the worker off dispatch rows still held for delivery (see renewHeldDispatches). */
  renewHeld(ids: string[]): Promise<void> {
    return renewHeldDispatches(this.dataSource, ids);
  }

  /** Creates or updates one contact in its own transaction and reads it back. */
  async upsert(projectId: string, input: ContactInput, subscribedByDefault: boolean): Promise<{ contact: Contact; isNew: boolean }> {
    return this.transaction(async (tx) => {
      const { outcome } = await this.upsertIn(tx, projectId, input, subscribedByDefault);
      return { contact: (await queries.findContact(tx.manager, projectId, outcome.id))!, isNew: outcome.isNew };
    });
  }

  /** Creates or updates one contact inside a caller's transaction. */
  async upsertIn(tx: EventTransaction, projectId: string, input: ContactInput, subscribedByDefault: boolean): Promise<UpsertedContact> {
    const patch = parseDataPatch(input.data);
    const [outcome] = await this.upsertMany(tx, projectId, [{ email: input.email, patch, subscribed: input.subscribed }], subscribedByDefault);
    return { outcome, patch };
  }

  /**
   * Creates or updates a batch of contacts (patches already parsed) inside a caller's
   * transaction; a later item for the same email is merged into the earlier one. Creating
   * contacts past the project's contacts cap throws BillingLimitExceededError (403), adding
   * keys past MAX_DATA_KEYS throws DataKeyLimitError (422).
   */
  async upsertMany(
    tx: EventTransaction,
    projectId: string,
    inputs: { email: string; patch: DataPatch; subscribed?: boolean }[],
    subscribedByDefault: boolean,
    renamed: ReadonlySet<string> = new Set(),
  ): Promise<queries.UpsertOutcome[]> {
    const byEmail = new Map<string, queries.UpsertItem>();
    for (const input of inputs) {
      const email = normalizeEmail(input.email);
      const item = byEmail.get(email) ?? { email, set: {}, unset: [], subscribed: undefined };
      Object.assign(item.set, input.patch.set);
      item.unset = [...item.unset.filter((key) => !(key in input.patch.set)), ...input.patch.unset];
      for (const key of input.patch.unset) delete item.set[key];
      item.subscribed = input.subscribed ?? item.subscribed;
      byEmail.set(email, item);
    }
    const items = [...byEmail.values()];
    const firstValues: Record<string, unknown> = {};
    for (const input of inputs) {
      for (const [key, value] of Object.entries(input.patch.set)) if (!(key in firstValues)) firstValues[key] = value;
    }
    const unknown = knownFields.unknown(projectId, Object.keys(firstValues));
    if (unknown.length > 0) {
      const added = await queries.recordFieldTypes(tx.manager, projectId, Object.fromEntries(unknown.map((key) => [key, firstValues[key]])));
      await assertWithinDataKeyLimit(tx.manager, projectId, added);
      tx.afterCommit(() => knownFields.remember(projectId, unknown));
    }
    const { outcomes, contactsCap, hooked } = await queries.upsertContacts(tx.manager, projectId, items, subscribedByDefault);
    const created = outcomes.filter((outcome) => outcome.isNew).length;
    if (created > 0 && contactsCap !== null) await assertWithinContactLimit(tx.manager, projectId, created);
    const flips = await tx.record(subscriptionEvents(projectId, outcomes));
    if (hooked) await emitWebhookEvents(tx.manager, projectId, contactWebhookEvents(outcomes, flips, renamed));
    tx.contactsChanged(projectId, outcomes.map((outcome) => outcome.id));
    const byOutcome = new Map(outcomes.map((outcome) => [outcome.email, outcome]));
    return inputs.map((input) => byOutcome.get(normalizeEmail(input.email))!);
  }

  /** One contact of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Contact> {
    const contact = await queries.findContact(this.dataSource.manager, projectId, id);
    if (!contact) throw notFound('Contact');
    return contact;
  }

  /** Changes a contact's email, subscription or data; 409 when the email belongs to another contact. */
  async update(projectId: string, id: string, input: Partial<ContactInput>): Promise<Contact> {
    return this.transaction(async (tx) => {
      const current = await queries.lockContact(tx.manager, projectId, id);
      if (!current) throw notFound('Contact');
      const renamed = new Set<string>();
      if (input.email !== undefined && normalizeEmail(input.email) !== current.email) {
        const email = normalizeEmail(input.email);
        const taken = await queries.findContactByEmail(tx.manager, projectId, email);
        if (taken) {
          throw new ApiError(409, 'CONTACT_EMAIL_TAKEN', `Another contact of this project already uses ${email}`);
        }
        await queries.setContactEmail(tx.manager, id, email);
        current.email = email;
        renamed.add(id);
      }
      await this.upsertMany(tx, projectId, [{ email: current.email, patch: parseDataPatch(input.data), subscribed: input.subscribed }], true, renamed);
      return (await queries.findContact(tx.manager, projectId, id))!;
    });
  }

  /** Sets the subscription of many contacts, emitting one event per flip; returns the ids found. */
  async setSubscribed(tx: EventTransaction, projectId: string, ids: string[], subscribed: boolean): Promise<string[]> {
    const rows = await queries.findEmailsByIds(tx.manager, projectId, ids);
    const noChange = { set: {}, unset: [], transient: {} };
    await this.upsertMany(tx, projectId, rows.map((row) => ({ email: row.email, patch: noChange, subscribed })), subscribed);
    return rows.map((row) => row.id);
  }

  /** Permanently deletes contacts (their events go with them), emitting `contact.deleted` for each; returns the ids deleted. */
  async deleteMany(tx: EventTransaction, projectId: string, ids: string[]): Promise<string[]> {
    const deleted = await queries.deleteContacts(tx.manager, projectId, ids);
    await emitWebhookEvents(tx.manager, projectId, deleted.map((contact) => contactEvent('contact.deleted', contact, `contact:${contact.id}:deleted`)));
    return deleted.map((contact) => contact.id);
  }

  /** Deletes one contact; 404 when it is not the project's. */
  async delete(projectId: string, id: string): Promise<void> {
    const deleted = await this.transaction((tx) => this.deleteMany(tx, projectId, [id]));
    if (deleted.length === 0) throw notFound('Contact');
  }

  /** A cursor page of contacts with the SPEC's filters and sort fallbacks. */
  async list(
    projectId: string,
    filter: queries.ContactFilter,
    sort: queries.ContactSort,
    dir: 'asc' | 'desc',
    page: CursorParams<queries.ContactCursor>,
  ) {
    const rows = await queries.listContacts(this.dataSource.manager, projectId, filter, sort, dir, page.limit + 1, page.cursor);
    return { rows, countTotal: () => queries.countContacts(this.dataSource.manager, projectId, filter) };
  }

  /** Which of the emails exist in the project, in request order. */
  async lookup(projectId: string, emails: string[]) {
    const normalized = emails.map(normalizeEmail);
    const rows = await queries.findIdsByEmails(this.dataSource.manager, projectId, normalized);
    const ids = new Map(rows.map((row) => [row.email, row.id]));
    return emails.map((email, i) => ({ email, exists: ids.has(normalized[i]), contactId: ids.get(normalized[i]) ?? null }));
  }
}
