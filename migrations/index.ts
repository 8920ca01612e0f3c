import { Foundation1763700000000 } from './1763700000000-foundation';
import { ContactsEventsJobs1763800000000 } from './1763800000000-contacts-events-jobs';
import { Sending1763900000000 } from './1763900000000-sending';
import { ContactSubscribedIndex1763950000000 } from './1763950000000-contact-subscribed-index';
import { SegmentsCampaigns1764000000000 } from './1764000000000-segments-campaigns';
import { ActivityIndex1764050000000 } from './1764050000000-activity-index';
import { CampaignAudienceIndex1764060000000 } from './1764060000000-campaign-audience-index';
import { Workflows1764100000000 } from './1764100000000-workflows';
import { BillingSecurity1764200000000 } from './1764200000000-billing-security';
import { EventDispatches1764300000000 } from './1764300000000-event-dispatches';
import { OAuthAccounts1764400000000 } from './1764400000000-oauth-accounts';
import { MailEventBacklog1764500000000 } from './1764500000000-mail-event-backlog';
import { OutboxProject1764610000000 } from './1764610000000-outbox-project';
import { VerifiedMemberships1764623000000 } from './1764623000000-verified-memberships';
import { RateLimitBuckets1764624000000 } from './1764624000000-rate-limit-buckets';
import { EmailContents1764630000000 } from './1764630000000-email-contents';
import { DomainClaims1764641000000 } from './1764641000000-domain-claims';
import { Webhooks1764700000000 } from './1764700000000-webhooks';
import { ScheduledEmails1764710000000 } from './1764710000000-scheduled-emails';
import { RelayParts1764720000000 } from './1764720000000-relay-parts';
import { LiteralContents1764730000000 } from './1764730000000-literal-contents';
import { WebhookFairDispatch1764740000000 } from './1764740000000-webhook-fair-dispatch';
import { ExecutionAwaitedEvents1764750000000 } from './1764750000000-execution-awaited-events';
import { ContactsHotUpdates1764760000000 } from './1764760000000-contacts-hot-updates';
import { KeysChangedNotify1764770000000 } from './1764770000000-keys-changed-notify';
import { SendQueue1764780000000 } from './1764780000000-send-queue';

/** Every migration, oldest first. */
export const migrations = [
  Foundation1763700000000,
  ContactsEventsJobs1763800000000,
  Sending1763900000000,
  ContactSubscribedIndex1763950000000,
  SegmentsCampaigns1764000000000,
  ActivityIndex1764050000000,
  CampaignAudienceIndex1764060000000,
  Workflows1764100000000,
  BillingSecurity1764200000000,
  EventDispatches1764300000000,
  OAuthAccounts1764400000000,
  MailEventBacklog1764500000000,
  OutboxProject1764610000000,
  VerifiedMemberships1764623000000,
  RateLimitBuckets1764624000000,
  EmailContents1764630000000,
  DomainClaims1764641000000,
  Webhooks1764700000000,
  ScheduledEmails1764710000000,
  RelayParts1764720000000,
  LiteralContents1764730000000,
  WebhookFairDispatch1764740000000,
  ExecutionAwaitedEvents1764750000000,
  ContactsHotUpdates1764760000000,
  KeysChangedNotify1764770000000,
  SendQueue1764780000000,
];
