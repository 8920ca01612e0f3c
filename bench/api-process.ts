import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../test/support/ports';
import { npmScriptNodeArgs } from '../test/support/npm-scripts';
import { buildHerald, waitFor, type Scratch } from './support';

/** How long the API process has to answer `/health` once started. */
const READY_TIMEOUT_MS = 60_000;

/** Herald's API in a process of its own. */
export interface ApiProcess {
  url: string;
  pid: number;
}

/**
 * Starts Herald's API as `npm run start:api` starts it (on the build in dist/app, refreshed
 * first), with this environment, on a free port and without the SMTP relay; resolves once
 * `/health` answers 200. It stops (SIGTERM, SIGKILL after 10 s) with the scratch cleanup.
 */
export async function startApiProcess(scratch: Scratch, env: Record<string, string | undefined>): Promise<ApiProcess> {
  buildHerald();
  const port = await freePort();
  const child = spawn(process.execPath, npmScriptNodeArgs('start:api'), {
    env: { ...env, PORT: String(port), SMTP_RELAY_PORT: 'off' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  scratch.onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  const url = `http://127.0.0.1:${port}`;
  const healthy = async () => {
    if (child.exitCode !== null) throw new Error(`The API process exited with code ${child.exitCode} before it answered /health`);
    return (await fetch(`${url}/health`).catch(() => undefined))?.status === 200;
  };
  if (!(await waitFor(healthy, READY_TIMEOUT_MS))) throw new Error(`The API process did not answer /health within ${READY_TIMEOUT_MS / 1000} s`);
  return { url, pid: child.pid! };
}
