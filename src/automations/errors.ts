/** A step that cannot succeed however often it is retried: its execution ends FAILED with this message. */
export class PermanentStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentStepError';
  }
}

/** An execution record that is not there (yet): the transaction that starts it may still be committing. */
export class ExecutionNotFoundError extends Error {
  constructor(executionId: string) {
    super(`workflow execution ${executionId} does not exist`);
    this.name = 'ExecutionNotFoundError';
  }
}
