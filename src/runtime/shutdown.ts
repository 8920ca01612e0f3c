import { logger } from '../logger';

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

/** Runs a process's start-up; a failure prints one clear line, stops what started, and exits 1. */
export function runMain(name: string, main: (shutdown: Shutdown) => Promise<void>): void {
  const shutdown = new Shutdown();
  shutdown.onSignals();
  main(shutdown).catch(async (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    logger.fatal({ err }, `${name} failed to start: ${message}`);
    process.stderr.write(`\n${name} failed to start: ${message}\n`);
    await shutdown.run();
    process.exit(1);
  });
}
