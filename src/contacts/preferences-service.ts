import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import { isUuid } from '../http/validate';
import type { ContactsService } from './contacts-service';
import { contactToken, readContactToken, type LinkPurpose } from './links';
import { findContactPreferences, type PreferencesRow } from './contacts-queries';

/** What a contact's public pages show. */
export interface Preferences {
  projectName: string;
  email: string;
  subscribed: boolean;
  /** The address is on the project's suppression list: nothing is sent to it, whatever `subscribed` says. */
  suppressed: boolean;
  /** Subscribe pages link to the manage page with this token, which lasts as long as theirs; an unsubscribe link gives none. */
  manageToken?: string;
}

/** The preferences a page shows, or why its link opens nothing. */
export type PageOutcome = Preferences | { refused: 'invalid' | 'expired' };

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

  /** The preferences of the contact a token of `purpose` names; refused for a forged, other-purpose or expired token or a deleted contact. */
  async find(purpose: LinkPurpose, token: string): Promise<PageOutcome> {
    const link = this.readToken(purpose, token);
    if ('refused' in link) return link;
    const row = await findContactPreferences(this.dataSource.manager, link.contactId);
    return row ? this.view(purpose, link, row) : { refused: 'invalid' };
  }

  /**
   * Subscribes or unsubscribes the contact a token names (a flip emits `contact.subscribed`
   * or `contact.unsubscribed`). A suppression stays: only removing it lifts it.
   */
  async setSubscribed(purpose: LinkPurpose, token: string, subscribed: boolean): Promise<PageOutcome> {
    const link = this.readToken(purpose, token);
    if ('refused' in link) return link;
    return this.contacts.transaction(async (tx) => {
      const row = await findContactPreferences(tx.manager, link.contactId);
      if (!row) return { refused: 'invalid' as const };
      await this.contacts.setSubscribed(tx, row.project_id, [link.contactId], subscribed);
      return this.view(purpose, link, { ...row, subscribed });
    });
  }

  private readToken(purpose: LinkPurpose, token: string) {
    const link = readContactToken(this.config, purpose, token);
    return 'refused' in link || isUuid(link.contactId) ? link : { refused: 'invalid' as const };
  }

  private view(purpose: LinkPurpose, link: { contactId: string; expiresAt: Date }, row: PreferencesRow): Preferences {
    const preferences = { projectName: row.project_name, email: row.email, subscribed: row.subscribed, suppressed: row.suppressed };
    if (purpose !== 'subscribe') return preferences;
    return { ...preferences, manageToken: contactToken(this.config, 'manage', link.contactId, link.expiresAt) };
  }
}
