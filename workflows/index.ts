/** Every workflow the worker runs; the worker bundles this module. Ids, inputs and signals: ./shared. */
export * from './campaigns';
export { runWorkflowExecution } from './contact-workflow';
export * from './delivery';
export * from './domains';
export * from './event-redelivery';
export * from './housekeeping';
export * from './jobs';
export * from './segments';
