import { ConfigError } from '../config';
import { logger } from '../logger';
import { describeSystemError, isExpectedStartupFailure } from './startup-error';

type Step = { name: string; run: () => Promise<unknown> };

/**
 * Stops what a process started, in reverse order, once: on SIGINT/SIGTERM or when
 * start-up fails. A second signal while stopping exits at once.
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private stopping: Promise<void> | undefined;

  /** Registers a stop step; steps run last-registered first. */
  add(name: string, run: () => Promise<unknown>): void {
    this.steps.push({ name, run });
  }

  /** Runs every stop step; errors are logged and the next step still runs. */
  run(): Promise<void> {
    this.stopping ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.run();
        } catch (err) {
          logger.error({ err }, `failed to stop ${step.name}`);
        }
      }
    })();
    return this.stopping;
  }

  /** Stops everything on SIGINT or SIGTERM, then exits. */
  onSignals(): void {
    let signalled = false;
    const handle = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(130);
      signalled = true;
      logger.info(`${signal} received, stopping`);
      void this.run().then(() => process.exit(0));
    };
    process.on('SIGINT', handle);
    process.on('SIGTERM', handle);
  }
}

/**
 * Runs a process's start-up; a failure prints one clear message, stops what started, and
 * exits 1. Expected failures (configuration, a part that cannot start, a system error such
 * as a permission or a full disk) print their message alone; anything else also logs its stack.
 */
export function runMain(name: string, main: (shutdown: Shutdown) => Promise<void>): void {
  const shutdown = new Shutdown();
  shutdown.onSignals();
  main(shutdown).catch(async (err: unknown) => {
    const message = failureMessage(err);
    if (err instanceof ConfigError || isExpectedStartupFailure(err)) logger.fatal(`${name} failed to start: ${message}`);
    else logger.fatal({ err }, `${name} failed to start: ${message}`);
    process.stderr.write(`\n${name} failed to start: ${message}\n`);
    await shutdown.run();
    process.exit(1);
  });
}

/** An error's message, never empty or `undefined`. */
function failureMessage(err: unknown): string {
  const system = describeSystemError(err);
  if (system) return system;
  if (err instanceof Error && err.message) return err.message;
  if (err instanceof Error) return `${err.name} without a message`;
  return err === undefined ? 'an unknown error (nothing was thrown)' : String(err);
}
