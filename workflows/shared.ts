/**
 * What Herald's Temporal workflows share with the code that starts, signals and serves them
 * (API services, activities, the worker, the CLI): workflow ids, inputs and outcomes, signals,
 * and the one-line summaries the Temporal UI shows. Workflow code imports this module, so it
 * holds no Node built-ins and no database code, and imports nothing from `src/` but types of
 * modules that never import workflows.
 */
import { defineSignal } from '@temporalio/workflow';
import type { SendingPlan } from '../src/campaigns/campaign-runner';
import type { JobType } from '../src/entities/job';
import type { Branch, StepType } from '../src/entities/workflow';
import type { ComputeResult } from '../src/segments/membership';

// ---- Workflow ids: readable, so that the Temporal UI finds a record's workflow by its id.

/** `wf-exec/<executionId>`: one contact's execution of an automation. */
export const executionWorkflowId = (executionId: string) => `wf-exec/${executionId}`;

/** `campaign/<campaignId>`: a campaign's sending. */
export const campaignWorkflowId = (campaignId: string) => `campaign/${campaignId}`;

/** `email/<emailId>`: the delivery of one email (`/v1/send`, a campaign test send). */
export const emailWorkflowId = (emailId: string) => `email/${emailId}`;

/** `send-lane/<taskQueue>/<lane>`: one of the lanes that deliver the task queue's send queue (`/v1/send`, batch, SMTP relay). */
export const sendLaneWorkflowId = (taskQueue: string, lane: number) => `send-lane/${taskQueue}/${lane}`;

/** `import/<jobId>` or `bulk/<jobId>`: a job's workflow. */
export const jobWorkflowId = (job: { id: string; type: JobType }) => `${job.type === 'IMPORT' ? 'import' : 'bulk'}/${job.id}`;

/** `segment/<segmentId>`: the computation of a tracked segment. */
export const segmentWorkflowId = (segmentId: string) => `segment/${segmentId}`;

/** `hook/<endpointId>/<eventId>`: one event's delivery to one webhook endpoint. */
export const webhookDeliveryWorkflowId = (endpointId: string, eventId: string) => `hook/${endpointId}/${eventId}`;

/** The one housekeeping workflow's id; starting it again while it runs is refused. */
export const HOUSEKEEPING_WORKFLOW_ID = 'housekeeping';

/** The one event-redelivery workflow's id; starting it again while it runs is refused. */
export const EVENT_REDELIVERY_WORKFLOW_ID = 'event-redelivery';

/** The one webhook-dispatch workflow's id; starting it again while it runs is refused. */
export const WEBHOOK_DISPATCH_WORKFLOW_ID = 'webhook-dispatch';

/** The schedule that starts `checkPendingDomains` every 5 minutes. */
export const DOMAIN_CHECK_SCHEDULE_ID = 'domain-check';

/** The schedule that starts `recomputeTrackedSegments` every SEGMENT_RECOMPUTE_MINUTES. */
export const SEGMENT_RECOMPUTE_SCHEDULE_ID = 'segment-recompute';

// ---- Automations: `wf-exec/<executionId>`.

/** One step of the graph an execution follows, as it was when the execution started. */
export interface GraphStep {
  id: string;
  type: StepType;
  name: string;
  config: Record<string, unknown>;
}

/** An edge of that graph; `branch` labels the CONDITION and WAIT_FOR_EVENT outcomes. */
export interface GraphTransition {
  fromStepId: string;
  toStepId: string;
  branch: Branch | null;
}

/** A workflow's steps and transitions, handed to an execution when it starts. */
export interface Graph {
  steps: GraphStep[];
  transitions: GraphTransition[];
}

/** The units a DELAY amount or a WAIT_FOR_EVENT timeout is counted in, with their length in seconds. */
export const DURATION_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400, weeks: 604_800 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** A DELAY step's config, and a WAIT_FOR_EVENT step's `timeout`. */
export interface Duration {
  amount: number;
  unit: DurationUnit;
}

/** What the activities of an execution know of it: everything it started with but the graph. */
export interface ExecutionRef {
  executionId: string;
  projectId: string;
  workflowId: string;
  contactId: string;
  /** The execution's `context` as it started; its values are one-off template variables of its emails and webhook bodies. */
  context: Record<string, unknown>;
  /** The triggering event, when an event started the execution. */
  eventName?: string;
  eventData?: Record<string, unknown>;
}

/** The input of `wf-exec/<executionId>`: the execution and the graph as it was when it started. */
export interface ExecutionInput extends ExecutionRef {
  graph: Graph;
}

/**
 * The end a SEND_EMAIL or UPDATE_CONTACT step recorded with its work also writes when its plain
 * transition ends the execution: EXITED at the EXIT step after it, or COMPLETED at the end of its path.
 */
export type StepEnd = { status: 'EXITED'; stepId: string } | { status: 'COMPLETED' };

/**
 * What recording and running a SEND_EMAIL, CONDITION or UPDATE_CONTACT step in one call answers:
 * STOPPED when the execution had already ended (before the step, which did not run, or before the
 * end it was given), ENDED when the step ran and the call ended the execution with that end, the
 * branch a CONDITION chose, or null to go on along the plain transition.
 */
export type RecordedStepResult = 'STOPPED' | 'ENDED' | 'yes' | 'no' | null;

/**
 * How an execution ended: COMPLETED (end of its path), EXITED (an EXIT step), or STOPPED when
 * its record had already ended without it (cancelled through the API while the workflow ran on).
 */
export type ExecutionOutcome = 'COMPLETED' | 'EXITED' | 'STOPPED';

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

/**
 * Sent to `email/<emailId>` by `POST /emails/{id}/cancel` once the email is CANCELLED: a scheduled
 * delivery still waiting for its time ends at once, without sending (an activity in flight is not
 * disturbed: the release at the time finds the email CANCELLED).
 */
export const scheduledEmailCancelled = defineSignal('scheduledEmailCancelled');

// ---- Campaigns: `campaign/<campaignId>`.

/** Where sending stands, carried across continue-as-new. */
export interface CampaignProgress extends SendingPlan {
  /** The last contact of the last batch sent; null before the first. */
  afterContactId: string | null;
}

/** The input of `campaign/<campaignId>`. */
export interface SendCampaignInput {
  campaignId: string;
  /** ISO time to wait for; null or past sends at once. */
  scheduledFor: string | null;
  /** Set when a run continues as new: sending started and goes on from here. */
  progress?: CampaignProgress;
  batchesPerRun?: number;
}

/** How a campaign run ended. */
export type CampaignOutcome = 'SENT' | 'NOT_ACTIVE';

// ---- Segments and domains.

/** What a segment computation changed: contacts that entered and left, and the members stored now. */
export type SegmentComputeResult = ComputeResult;

/** What one recompute of every tracked segment did. */
export interface RecomputeSummary {
  segments: number;
  failed: number;
  entered: number;
  exited: number;
}

/** What one domain check run checked, how many domains it found verified, and how many claims lapsed. */
export interface DomainCheckSummary {
  checked: number;
  verified: number;
  lapsed: number;
}

// ---- Summaries: the one line the Temporal UI shows for an execution (`staticSummary`).

/** The longest summary kept; the UI shows one line. */
const SUMMARY_MAX = 200;

/** Cuts a summary to one line of at most SUMMARY_MAX characters. */
export function summary(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}

/** The UI summary of an automation's execution: `<automation> for <email>`. */
export const executionSummary = (automationName: string, contactEmail: string) => summary(`${automationName} for ${contactEmail}`);

/** The UI summary of a campaign's sending: `Campaign <name>`, with the time it waits for. */
export const campaignSummary = (campaignName: string, scheduledFor: string | null) =>
  summary(`Campaign ${campaignName}${scheduledFor ? ` (scheduled for ${scheduledFor})` : ''}`);

/** The UI summary of one email's delivery: `Send to <address>: <subject>`. */
export const emailSummary = (to: string, subject: string) => summary(`Send to ${to}: ${subject}`);

/** The UI summary of a job: `Import <file> (<size> KB)` or `BULK_DELETE 120 contacts`. */
export const jobSummary = (type: JobType, detail: { filename?: string; bytes?: number; contacts?: number }) =>
  summary(type === 'IMPORT' ? `Import ${detail.filename ?? 'CSV'} (${Math.ceil((detail.bytes ?? 0) / 1024)} KB)` : `${type} ${detail.contacts ?? 0} contacts`);

/** The UI summary of a segment computation: `Compute segment <name>`. */
export const segmentSummary = (segmentName: string) => summary(`Compute segment ${segmentName}`);

/** The UI summary of a webhook delivery: `Webhook <event type> to <origin>` (the URL's path and query may hold a token: left out). */
export const webhookSummary = (eventType: string, origin: string) => summary(`Webhook ${eventType} to ${origin}`);
