import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ensureSearchAttributes, HERALD_SEARCH_ATTRIBUTES } from '../../src/orchestration/search-attributes';
import { processCommand, processState } from '../../src/runtime/process-table';
import { startDevServer, type DevServer } from '../../temporal/dev-server';
import {
  applyVisibilityIndexChanges,
  findVisibilityIndexTool,
  SLOT_COLUMNS,
  slotIndex,
  UNQUERIED_VISIBILITY_INDEXES,
  visibilityIndexes,
} from '../../temporal/visibility-indexes';
import { freePort } from '../support/ports';
import { builtTemporalCli } from '../support/temporal';
import { until } from '../support/wait';

/** The Temporal CLI dev server as `npm start` runs it: a leftover of a crashed run is replaced, a taken port named. */
describe('Temporal dev server start-up', () => {
  let dataDir: string;
  let cliPath: string;
  const started: DevServer[] = [];

  beforeAll(async () => {
    cliPath = await builtTemporalCli();
  });
  /** The program that trims the visibility indexes; needs Go to be built. */
  const indexTool = async () => {
    const tool = await findVisibilityIndexTool();
    if (!tool) throw new Error('No visibility index program: `npx tsx temporal/cli.ts` builds it with Go (as .ci/run does)');
    return tool;
  };
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
    expect(command).toContain(path.join(dataDir, 'temporal.sqlite'));
  });

  /** Runs `use` with a client of the server. */
  const withClient = async <T>(server: DevServer, use: (client: Client, connection: Connection) => Promise<T>): Promise<T> => {
    const connection = await Connection.connect({ address: server.address });
    try {
      return await use(new Client({ connection, namespace: 'default' }), connection);
    } finally {
      await connection.close();
    }
  };
  /** Starts a workflow carrying HeraldContactEmail on the server and answers the value it describes. */
  const startWithContactEmail = (server: DevServer, workflowId: string) =>
    withClient(server, async (client) => {
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
    });
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
  /** The custom search attribute columns the namespace maps to an attribute. */
  const mappedSlots = (server: DevServer) =>
    withClient(server, async (_, connection) => {
      const { config } = await connection.workflowService.describeNamespace({ namespace: 'default' });
      return Object.keys(config?.customSearchAttributeAliases ?? {}).filter((column) => SLOT_COLUMNS.includes(column));
    });
  const database = () => path.join(dataDir, 'temporal.sqlite');
  /** The indexes a trimmed database has: all of them but the unqueried ones and the unmapped slots'. */
  const trimmed = (all: string[], mapped: string[]) =>
    all.filter((name) => !UNQUERIED_VISIBILITY_INDEXES.includes(name) && !SLOT_COLUMNS.some((column) => slotIndex(column) === name && !mapped.includes(column)));

  it('drops the visibility indexes no query uses from a database an earlier run left with all of them, keeps those of the slots Herald\'s attributes map to, and lists by kept and dropped columns alike', async () => {
    const tool = await indexTool();
    const earlier = await start(await freePort(), await freePort());
    const all = await visibilityIndexes(tool, database());
    expect(all).toHaveLength(45);
    const mapped = await mappedSlots(earlier);
    expect(mapped).toHaveLength(Object.keys(HERALD_SEARCH_ATTRIBUTES).length);
    const before = await withClient(earlier, async (client) => {
      const id = await startForAutomation(client, 'before-the-drop', 'automation-1');
      await client.workflow.getHandle(id).terminate();
      return id;
    });
    await earlier.stop();

    const server = await start(await freePort(), await freePort(), { visibilityIndexTool: tool });
    const kept = await visibilityIndexes(tool, database());
    expect(kept).toEqual(trimmed(all, mapped));
    expect(kept).toHaveLength(45 - UNQUERIED_VISIBILITY_INDEXES.length - (SLOT_COLUMNS.length - mapped.length));
    expect(kept).toEqual(expect.arrayContaining(['default_idx', 'by_workflow_id', 'by_status', ...mapped.map(slotIndex)]));
    await withClient(server, async (client) => {
      const after = await startForAutomation(client, 'after-the-drop', 'automation-1');
      await startForAutomation(client, 'another-automation', 'automation-2');
      await listed(client, 'HeraldWorkflowId = "automation-1"', [before, after]);
      await listed(client, 'HeraldWorkflowId = "automation-1" AND ExecutionStatus = "Running"', [after]);
      // by_history_length is gone: the query reads the table instead.
      await listed(client, 'HistoryLength > 0', [before]);
    });
  });

  it('keeps every slot\'s index while the mapping is not known (a DATA_DIR from before it was recorded), and trims them the start after', async () => {
    const tool = await indexTool();
    await (await start(await freePort(), await freePort())).stop();
    const all = await visibilityIndexes(tool, database());
    rmSync(path.join(dataDir, 'temporal-search-attribute-slots.json'));
    const first = await start(await freePort(), await freePort(), { visibilityIndexTool: tool });
    const mapped = await mappedSlots(first);
    expect(await visibilityIndexes(tool, database())).toEqual(all.filter((name) => !UNQUERIED_VISIBILITY_INDEXES.includes(name)));
    await first.stop();
    await start(await freePort(), await freePort(), { visibilityIndexTool: tool });
    expect(await visibilityIndexes(tool, database())).toEqual(trimmed(all, mapped));
  });

  it('drops them from a new database between the CLI\'s creating it and a second start, and creates again, two starts later, the index of a slot an attribute maps to since', async () => {
    const tool = await indexTool();
    const server = await start(await freePort(), await freePort(), { visibilityIndexTool: tool });
    const kept = await visibilityIndexes(tool, database());
    expect(kept).toHaveLength(45 - UNQUERIED_VISIBILITY_INDEXES.length - (SLOT_COLUMNS.length - Object.keys(HERALD_SEARCH_ATTRIBUTES).length));
    for (const name of UNQUERIED_VISIBILITY_INDEXES) expect(kept).not.toContain(name);
    expect(await startWithContactEmail(server, 'new-database')).toBe('ada@example.com');
    // An operator adds an attribute of their own: it maps to an Int slot, whose index is gone.
    await withClient(server, (_, connection) =>
      connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes: { OperatorScore: 3 /* temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT */ } }),
    );
    const intSlot = (await mappedSlots(server)).find((column) => column.startsWith('Int'));
    expect(intSlot).toBeDefined();
    expect(kept).not.toContain(slotIndex(intSlot as string));
    await server.stop();
    // The start after it records the mapping with the new slot; the one after that creates its index.
    await (await start(await freePort(), await freePort(), { visibilityIndexTool: tool })).stop();
    expect(await visibilityIndexes(tool, database())).toEqual(kept);
    await start(await freePort(), await freePort(), { visibilityIndexTool: tool });
    expect(await visibilityIndexes(tool, database())).toEqual([...kept, slotIndex(intSlot as string)].sort());
  });

  it('never creates a database (the CLI would take it for one it set up), and refuses what is not an index or a slot column', async () => {
    const tool = await indexTool();
    await expect(visibilityIndexes(tool, database())).rejects.toThrow(/no such file/);
    expect(existsSync(database())).toBe(false);
    await (await start(await freePort(), await freePort())).stop();
    await expect(applyVisibilityIndexChanges(tool, database(), { drop: ['x"; DROP TABLE executions_visibility; --'], create: [] })).rejects.toThrow(/not drop/);
    await expect(applyVisibilityIndexChanges(tool, database(), { drop: [], create: ['close_time'] })).rejects.toThrow(/not drop/);
    expect(await visibilityIndexes(tool, database())).toHaveLength(45);
  });
});
