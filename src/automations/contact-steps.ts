import type { DataSource } from 'typeorm';
import type { Condition } from '../conditions/condition';
import { contactMatches } from '../conditions/condition-queries';
import { findContact } from '../contacts/contacts-queries';
import type { ContactsService } from '../contacts/contacts-service';
import { ApiError } from '../http/errors';
import { PermanentStepError } from './errors';

/** An UPDATE_CONTACT step's config: a `data` patch (the usual rules) and a subscription state. */
export interface UpdateContactConfig {
  data?: Record<string, unknown>;
  subscribed?: boolean;
}

/** CONDITION: whether the contact matches now; `event.data.<key>` filters read the triggering event. A deleted contact matches nothing. */
export function evaluateCondition(
  dataSource: DataSource,
  projectId: string,
  contactId: string,
  condition: Condition,
  eventData?: Record<string, unknown>,
): Promise<boolean> {
  return contactMatches(dataSource.manager, projectId, contactId, condition, eventData);
}

/**
 * UPDATE_CONTACT: patches the contact through ContactsService, so a subscription flip emits
 * its event and tracked segments see the change; false when the contact was deleted meanwhile.
 * A patch the contact rules refuse (the data key limit) is a PermanentStepError.
 */
export async function updateContact(contacts: ContactsService, projectId: string, contactId: string, config: UpdateContactConfig): Promise<boolean> {
  try {
    return await contacts.transaction(async (tx) => {
      const contact = await findContact(tx.manager, projectId, contactId);
      if (!contact) return false;
      await contacts.upsertIn(tx, projectId, { email: contact.email, data: config.data, subscribed: config.subscribed }, contact.subscribed);
      return true;
    });
  } catch (err) {
    if (err instanceof ApiError) throw new PermanentStepError(`UPDATE_CONTACT: ${err.message}`);
    throw err;
  }
}
