/**
 * Every workflow the worker runs; the worker bundles this module. Ids, inputs and signals: ./shared.
 *
 * Executions in flight replay their history on the code deployed now: a change that issues
 * other commands (activities, timers, their order or number) goes behind
 * `patched('<workflow>-<change>')`, then `deprecatePatch` once no older execution runs, or into
 * a new version of the workflow for new executions, the old one kept for those in flight
 * (README, "Changing workflow code with executions in flight"; test/workflows/patching.test.ts).
 */
export * from './campaigns';
export { runWorkflowExecution, runWorkflowExecutionV2 } from './contact-workflow';
export * from './delivery';
export * from './domains';
export * from './event-redelivery';
export * from './housekeeping';
export * from './jobs';
export * from './segments';
export * from './send-lane';
export * from './webhook-delivery';
export * from './webhook-dispatch';
