import { Foundation1763700000000 } from './1763700000000-foundation';
import { ContactsEventsJobs1763800000000 } from './1763800000000-contacts-events-jobs';
import { Sending1763900000000 } from './1763900000000-sending';

/** Every migration, oldest first. */
export const migrations = [Foundation1763700000000, ContactsEventsJobs1763800000000, Sending1763900000000];
