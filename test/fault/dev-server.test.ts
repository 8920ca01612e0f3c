import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ensureSearchAttributes, HERALD_SEARCH_ATTRIBUTES } from '../../src/orchestration/search-attributes';
import { processCommand, processState } from '../../src/runtime/process-table';
import { findTemporalCli } from '../../temporal/cli';
import { startDevServer, type DevServer } from '../../temporal/dev-server';
import { findVisibilityIndexTool, UNUSED_VISIBILITY_INDEXES, visibilityIndexes } from '../../temporal/visibility-indexes';
import { freePort } from '../support/ports';
import { until } from '../support/wait';

/** The Temporal CLI dev server as `npm start` runs it: a leftover of a crashed run is replaced, a taken port named. */
describe('Temporal dev server start-up', () => {
  let dataDir: string;
  let cliPath: string;
  let indexTool: string;
  const started: DevServer[] = [];

  beforeAll(async () => {
    const found = await findTemporalCli({ install: false });
    if (!found) throw new Error('No Temporal CLI: `npx tsx temporal/cli.ts` builds it (as .ci/run does)');
    cliPath = found;
    const tool = await findVisibilityIndexTool();
    if (!tool) throw new Error('No visibility index tool: `npx tsx temporal/cli.ts` builds it (as .ci/run does)');
    indexTool = tool;
  });
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'herald-dev-server-'));
  });
  afterEach(async () => {
    for (const server of started.splice(0)) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (port: number, uiPort: number, options: { visibilityIndexTool?: string } = {}) => {
    const server = await startDevServer({ cliPath, dataDir, port, uiPort, namespace: 'default', searchAttributes: HERALD_SEARCH_ATTRIBUTES, ...options });
    started.push(server);
    return server;
  };
  const recordedPid = () => JSON.parse(readFileSync(path.join(dataDir, 'run', 'temporal.json'), 'utf8')).pid as number;

  it('runs with the crash-safe SQLite pragmas and records its pid', async () => {
    await start(await freePort(), await freePort());
    const command = processCommand(recordedPid());
    expect(command).toContain('--sqlite-pragma journal_mode=wal');
    expect(command).toContain('--sqlite-pragma synchronous=normal');
    expect(command).toContain('--sqlite-pragma wal_autocheckpoint=10000');
    expect(command).toContain('--sqlite-pragma busy_timeout=10000');
    expect(command).toContain(path.join(dataDir, 'temporal.sqlite'));
  });

  /** Starts a workflow carrying HeraldContactEmail on the server and answers the value it describes. */
  const startWithContactEmail = async (server: DevServer, workflowId: string) => {
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection, namespace: 'default' });
      // As Herald does before its first start: registers the attributes the namespace lacks.
      expect(await ensureSearchAttributes(client)).toBe(true);
      const handle = await client.workflow.start('noWorkerPollsThis', {
        taskQueue: 'dev-server-test',
        workflowId,
        typedSearchAttributes: [{ key: { name: 'HeraldContactEmail', type: 'KEYWORD' }, value: 'ada@example.com' }],
      });
      const { typedSearchAttributes } = await handle.describe();
      await handle.terminate();
      return typedSearchAttributes.get({ name: 'HeraldContactEmail', type: 'KEYWORD' });
    } finally {
      await connection.close();
    }
  };
  const CACHED = '--dynamic-config-value system.forceSearchAttributesCacheRefreshOnRead=false';
  const QUEUE_CHECKPOINTS = ['transfer', 'timer', 'visibility'].map((queue) => `--dynamic-config-value history.${queue}ProcessorUpdateAckInterval="1s"`);

  it('takes a start carrying Herald\'s search attributes at once, read from its cache on a new DATA_DIR and once an earlier run registered them', async () => {
    const first = await start(await freePort(), await freePort());
    expect(processCommand(recordedPid())).toContain(CACHED);
    for (const checkpoint of QUEUE_CHECKPOINTS) expect(processCommand(recordedPid())).toContain(checkpoint);
    expect(await startWithContactEmail(first, 'first-run')).toBe('ada@example.com');
    await first.stop();
    const server = await start(await freePort(), await freePort());
    expect(processCommand(recordedPid())).toContain(CACHED);
    expect(await startWithContactEmail(server, 'search-attributes')).toBe('ada@example.com');
  });

  it('stops the dev server an earlier run left on the same DATA_DIR and takes its ports', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    await start(port, uiPort);
    const leftover = recordedPid();
    await start(port, uiPort);
    expect(processState(leftover)).not.toBe('running');
    expect(recordedPid()).not.toBe(leftover);
    expect(processState(recordedPid())).toBe('running');
  });

  it('names the port and the variable when another program holds it', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      await expect(start(port, await freePort())).rejects.toThrow(
        `Temporal dev server: 127.0.0.1:${port} is already in use by another program\n  Stop that program, or set TEMPORAL_PORT to a free port.`,
      );
    } finally {
      blocker.close();
    }
  });

  it('takes a start carrying a search attribute the DATA_DIR did not have before, registered while it runs, and reads from its cache only the run after', async () => {
    const { HeraldContactEmail: _, ...older } = HERALD_SEARCH_ATTRIBUTES;
    const first = await startDevServer({ cliPath, dataDir, port: await freePort(), uiPort: await freePort(), namespace: 'default', searchAttributes: older });
    await first.stop();
    const server = await start(await freePort(), await freePort());
    expect(processCommand(recordedPid())).not.toContain(CACHED);
    expect(await startWithContactEmail(server, 'new-search-attribute')).toBe('ada@example.com');
    await server.stop();
    const next = await start(await freePort(), await freePort());
    expect(processCommand(recordedPid())).not.toContain(CACHED);
    await next.stop();
    const cached = await start(await freePort(), await freePort());
    expect(processCommand(recordedPid())).toContain(CACHED);
    expect(await startWithContactEmail(cached, 'cached-search-attribute')).toBe('ada@example.com');
  });

  /** Starts a workflow of Herald's automation `automation` (search attribute HeraldWorkflowId) that no worker runs; answers its id. */
  const startForAutomation = async (client: Client, workflowId: string, automation: string) => {
    await client.workflow.start('noWorkerPollsThis', {
      taskQueue: 'dev-server-test',
      workflowId,
      typedSearchAttributes: [{ key: { name: 'HeraldWorkflowId', type: 'KEYWORD' }, value: automation }],
    });
    return workflowId;
  };
  /** The ids of the workflows a visibility query lists, once they are `expected` (the visibility queue trails the starts). */
  const listed = (client: Client, query: string, expected: string[]) =>
    until(
      async () => {
        const ids: string[] = [];
        for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
        return ids.sort();
      },
      (ids) => JSON.stringify(ids) === JSON.stringify([...expected].sort()),
      `the workflows of ${query}`,
    );

  it('drops the visibility indexes no query uses from a database an earlier run left with all of them, and lists by the remaining and the dropped columns alike', async () => {
    const database = path.join(dataDir, 'temporal.sqlite');
    const earlier = await start(await freePort(), await freePort());
    const all = await visibilityIndexes(indexTool, database);
    expect(all).toHaveLength(45);
    expect(all).toEqual(expect.arrayContaining([...UNUSED_VISIBILITY_INDEXES]));
    let connection = await Connection.connect({ address: earlier.address });
    let client = new Client({ connection, namespace: 'default' });
    expect(await ensureSearchAttributes(client)).toBe(true);
    const before = await startForAutomation(client, 'before-the-drop', 'automation-1');
    await client.workflow.getHandle(before).terminate();
    await connection.close();
    await earlier.stop();

    const server = await start(await freePort(), await freePort(), { visibilityIndexTool: indexTool });
    const kept = await visibilityIndexes(indexTool, database);
    expect(kept).toEqual(all.filter((name) => !UNUSED_VISIBILITY_INDEXES.includes(name)));
    expect(kept).toEqual(expect.arrayContaining(['default_idx', 'by_workflow_id', 'by_status', 'by_keyword_01', 'by_keyword_02', 'by_keyword_03']));
    connection = await Connection.connect({ address: server.address });
    try {
      client = new Client({ connection, namespace: 'default' });
      const after = await startForAutomation(client, 'after-the-drop', 'automation-1');
      await startForAutomation(client, 'another-automation', 'automation-2');
      await listed(client, 'HeraldWorkflowId = "automation-1"', [before, after]);
      await listed(client, 'HeraldWorkflowId = "automation-1" AND ExecutionStatus = "Running"', [after]);
      // by_history_length is gone: the query reads the table instead.
      await listed(client, 'HistoryLength > 0', [before]);
    } finally {
      await connection.close();
    }
  });

  it('drops them from a new database once the server created it, and the server goes on', async () => {
    const server = await start(await freePort(), await freePort(), { visibilityIndexTool: indexTool });
    const kept = await visibilityIndexes(indexTool, path.join(dataDir, 'temporal.sqlite'));
    expect(kept).toHaveLength(45 - UNUSED_VISIBILITY_INDEXES.length);
    for (const name of UNUSED_VISIBILITY_INDEXES) expect(kept).not.toContain(name);
    expect(await startWithContactEmail(server, 'new-database')).toBe('ada@example.com');
  });

  it('never creates a database: the CLI would then take it for one it set up', async () => {
    const missing = path.join(dataDir, 'temporal.sqlite');
    await expect(visibilityIndexes(indexTool, missing)).rejects.toThrow(/no such file/);
    expect(existsSync(missing)).toBe(false);
  });
});
