import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { EventRecord } from '../entities/event-record';
import type { EventDispatcher } from '../events/dispatcher';
import { ApiError } from '../http/errors';
import { logger } from '../logger';
import { signalWaitingExecutions, startExecution } from './start-execution';
import { graphProblems } from './graph';
import { inPool } from './pool';
import * as queries from './workflows-queries';

/** What triggers need: the database and a Temporal client on the workers' task queue. */
export interface TriggerDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
}

/**
 * How many contacts of one batch of events are handled at once; each contact's events stay in
 * order. A triggered start holds a database connection only while it writes its record, not
 * while Temporal answers, so this is bounded by what Temporal takes in, not by the pool.
 */
const CONTACT_CONCURRENCY = 64;

/** A reaction that could not run for now (Temporal or the database unavailable): the events are dispatched again later. */
class TriggerFailed extends Error {}

/**
 * Runs one reaction to an event. A refusal that no retry can change (the workflow or
 * contact is gone: a 4xx) is logged and dropped; any other failure is logged and reported.
 */
async function attempt(what: string, event: EventRecord, work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    const permanent = err instanceof ApiError && err.statusCode < 500;
    logger[permanent ? 'warn' : 'error']({ err, eventId: event.id, event: event.name, contactId: event.contactId }, what);
    return permanent;
  }
}

/** The events with a contact, by project and then by contact, in the order stored. */
function byProjectAndContact(events: EventRecord[]): Map<string, Map<string, EventRecord[]>> {
  const projects = new Map<string, Map<string, EventRecord[]>>();
  for (const event of events) {
    if (!event.contactId) continue;
    const contacts = projects.get(event.projectId) ?? new Map<string, EventRecord[]>();
    projects.set(event.projectId, contacts.set(event.contactId, [...(contacts.get(event.contactId) ?? []), event]));
  }
  return projects;
}

/** The enabled workflows of the project triggered by these event names whose graph can run; others are logged and skipped. */
async function runnableWorkflows(deps: TriggerDeps, projectId: string, eventNames: string[]) {
  const workflows = await queries.triggeredWorkflows(deps.dataSource.manager, projectId, eventNames);
  const graphs = await queries.graphsOf(deps.dataSource.manager, workflows.map((workflow) => workflow.id));
  return workflows.filter((workflow) => {
    const { steps, transitions } = graphs.get(workflow.id)!;
    const problems = graphProblems(steps, transitions);
    if (problems.length > 0) logger.warn({ workflowId: workflow.id, problems }, 'enabled workflow not started: its graph cannot run');
    return problems.length === 0;
  });
}

/** Reacts to one project's events: resumes the contacts' waiting executions, then starts triggered workflows. */
async function handleProject(deps: TriggerDeps, projectId: string, contacts: Map<string, EventRecord[]>): Promise<void> {
  const names = [...new Set([...contacts.values()].flat().map((event) => event.name))];
  const { triggered, active } = await queries.triggerCandidates(deps.dataSource.manager, projectId, names, [...contacts.keys()]);
  const workflows = triggered ? await runnableWorkflows(deps, projectId, names) : [];
  if (workflows.length === 0 && active.size === 0) return;
  let failed = 0;
  await inPool([...contacts], CONTACT_CONCURRENCY, async ([contactId, events]) => {
    for (const event of events) {
      const done: boolean[] = [];
      if (active.has(contactId)) {
        done.push(await attempt('signalling waiting executions failed', event, () =>
          signalWaitingExecutions(deps, projectId, contactId, { id: event.id, name: event.name, data: event.data }),
        ));
      }
      for (const workflow of workflows.filter((candidate) => candidate.triggerConfig.eventName === event.name)) {
        done.push(await attempt('starting a triggered execution failed', event, () =>
          startExecution(deps, { projectId, workflowId: workflow.id, contactId, eventName: event.name, eventData: event.data, triggerEventId: event.id }),
        ));
      }
      failed += done.filter((ok) => !ok).length;
    }
  });
  if (failed > 0) throw new TriggerFailed(`${failed} workflow trigger(s) or signal(s) of project ${projectId} failed`);
}

/**
 * Makes stored events drive workflows: every event with a contact (tracked, `contact.*`,
 * `segment.*.entry|exit`, `email.*`) is signalled to that contact's executions that wait for its
 * name (signalWaitingExecutions) and starts
 * an execution of each enabled workflow it triggers (the engine drops a start while one is active,
 * or on reentry when not allowed). Safe to deliver twice: a signal carries the event id, which an
 * execution takes once, and an execution records its trigger event, which starts it once. A start or
 * signal that failed for now makes the subscriber throw, so the dispatch is repeated. Register once
 * per dispatcher (API and worker processes); returns a function that stops it.
 */
export function registerWorkflowTriggers(dispatcher: EventDispatcher, deps: TriggerDeps): () => void {
  return dispatcher.subscribe(async (events) => {
    for (const [projectId, contacts] of byProjectAndContact(events)) await handleProject(deps, projectId, contacts);
  });
}
