/** Every workflow the worker runs; the worker bundles this module. */
export * from './housekeeping';
export * from './jobs';
