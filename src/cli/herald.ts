import type { DataSource } from 'typeorm';
import { loadConfig, type Config } from '../config';
import { openDatabase } from '../db/data-source';
import { logger } from '../logger';
import { SuspensionLifts } from '../reputation/suspension-lifts';
import { runningDatabaseUrl } from '../runtime/infrastructure';
import { StartupError } from '../runtime/startup-error';

/** An operator command: the arguments it takes, and what it does, answering the line to print. */
interface Command {
  args: string[];
  summary: string;
  run(dataSource: DataSource, config: Config, args: string[]): Promise<string>;
}

const COMMANDS: Record<string, Command> = {
  'lift-suspension': {
    args: ['projectId'],
    summary: 're-enable a project suspended for its bounce or complaint rate; its rate window starts afresh',
    async run(dataSource, config, [projectId]) {
      const state = await new SuspensionLifts(dataSource, config.adminEmails).lift(projectId, null);
      return `Lifted the suspension of project ${projectId}: its keys work again; its rates count from ${state.window.since.toISOString()}.`;
    },
  },
};

const USAGE = [
  'Usage: npm run herald -- <command> [arguments]',
  '',
  'Commands (against DATABASE_URL, or the embedded Postgres of a running `npm start`):',
  ...Object.entries(COMMANDS).map(([name, command]) => `  ${[name, ...command.args.map((arg) => `<${arg}>`)].join(' ')}\n      ${command.summary}`),
].join('\n');

/** Runs one operator command from the command line; answers the exit code (0 done, 1 refused or failed, 2 bad usage). */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = Object.hasOwn(COMMANDS, name ?? '') ? COMMANDS[name] : undefined;
  if (!command || args.length !== command.args.length) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  logger.level = 'warn';
  const dataSource = await openDatabase(runningDatabaseUrl(config), 2);
  try {
    process.stdout.write(`${await command.run(dataSource, config, args)}\n`);
    return 0;
  } finally {
    await dataSource.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const hint = err instanceof StartupError ? ' (is `npm start` running, or DATABASE_URL set?)' : '';
    process.stderr.write(`herald: ${(err as Error).message}${hint}\n`);
    process.exit(1);
  },
);
