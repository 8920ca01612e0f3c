import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config';
import { isUuid } from '../http/validate';
import type { ContactsService } from './contacts-service';
import { contactIdFromToken } from './links';
import { suppressedSql } from '../sending/suppressions';

/** What a contact's public pages show. */
export interface Preferences {
  projectName: string;
  email: string;
  subscribed: boolean;
  /** The address is on the project's suppression list: nothing is sent to it, whatever `subscribed` says. */
  suppressed: boolean;
}

interface Row {
  project_id: string;
  project_name: string;
  email: string;
  subscribed: boolean;
  suppressed: boolean;
}

/**
 * The contact behind a signed page link (unsubscribe, subscribe, manage): reads its
 * subscription and changes it through the contacts service, so the usual events fire.
 */
export class PreferencesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Pick<Config, 'tokenSecret'>,
    private readonly contacts: ContactsService,
  ) {}

  /** The preferences of the contact a token names; undefined for a forged token or a deleted contact. */
  async find(token: string): Promise<Preferences | undefined> {
    const contactId = this.contactId(token);
    const row = contactId ? await this.load(this.dataSource.manager, contactId) : undefined;
    return row && view(row);
  }

  /**
   * Subscribes or unsubscribes the contact a token names (a flip emits `contact.subscribed`
   * or `contact.unsubscribed`). A suppression stays: only removing it lifts it.
   */
  async setSubscribed(token: string, subscribed: boolean): Promise<Preferences | undefined> {
    const contactId = this.contactId(token);
    if (!contactId) return undefined;
    return this.contacts.transaction(async (tx) => {
      const row = await this.load(tx.manager, contactId);
      if (!row) return undefined;
      await this.contacts.setSubscribed(tx, row.project_id, [contactId], subscribed);
      return view({ ...row, subscribed });
    });
  }

  private contactId(token: string): string | undefined {
    const contactId = contactIdFromToken(this.config, token);
    return contactId && isUuid(contactId) ? contactId : undefined;
  }

  private async load(manager: EntityManager, contactId: string): Promise<Row | undefined> {
    const [row]: Row[] = await manager.query(
      `SELECT c.project_id, p.name AS project_name, c.email, c.subscribed,
              ${suppressedSql('c.project_id', 'c.email')} AS suppressed
         FROM contacts c JOIN projects p ON p.id = c.project_id
        WHERE c.id = $1`,
      [contactId],
    );
    return row;
  }
}

function view(row: Row): Preferences {
  return { projectName: row.project_name, email: row.email, subscribed: row.subscribed, suppressed: row.suppressed };
}
