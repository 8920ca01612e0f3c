import { defineSignal } from '@temporalio/workflow';

/** An event of the execution's contact, as the API hands it to a running execution. */
export interface ReceivedEvent {
  /** The stored event's id; an execution takes each id once, however often it is signalled. */
  id?: string;
  name: string;
  data: Record<string, unknown>;
}

/**
 * Sent to every RUNNING or WAITING execution of a contact when an event of that contact is
 * stored; a WAIT_FOR_EVENT step waiting for that name moves on along its `yes` branch.
 */
export const eventReceived = defineSignal<[ReceivedEvent]>('eventReceived');
