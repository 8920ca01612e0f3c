import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { ConfigError, loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { startEmbeddedPostgres, startupHint, type EmbeddedDatabase } from '../../src/db/embedded';
import { packagedNativeDir, ROOT_SHARED_DIR } from '../../src/db/postgres-binaries';
import { postgresUser } from '../../src/db/postgres-user';
import { processState } from '../../src/runtime/process-table';
import { StartupError } from '../../src/runtime/startup-error';
import { descendants } from '../support/herald-process';
import { freePort } from '../support/ports';
import { until } from '../support/wait';

/** The embedded Postgres as `npm start` runs it: restarts over whatever a crash left, and fails with the cause. */
describe('embedded Postgres start-up', () => {
  const started: EmbeddedDatabase[] = [];
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'herald-pg-fault-'));
    chmodSync(root, 0o755);
  });
  afterEach(async () => {
    for (const database of started.splice(0)) await database.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  });

  const start = async (overrides: { port?: number; directory?: string; nativeDir?: string; sharedBuffers?: string } = {}) => {
    const database = await startEmbeddedPostgres({
      directory: overrides.directory ?? path.join(root, 'postgres'),
      port: overrides.port ?? (await freePort()),
      password: 'fault-test',
      database: 'herald',
      persistent: true,
      logFile: path.join(root, 'postgres.log'),
      nativeDir: overrides.nativeDir,
      sharedBuffers: overrides.sharedBuffers,
    });
    started.push(database);
    return database;
  };
  const query = async (url: string, sql: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const postmasterPid = () => Number(readFileSync(path.join(root, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const portOf = (url: string) => Number(new URL(url).port);

  it('comes back with its data after every Postgres process was SIGKILLed', async () => {
    const first = await start();
    await query(first.url, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)`);
    const postmaster = postmasterPid();
    for (const pid of [postmaster, ...descendants(postmaster)]) process.kill(pid, 'SIGKILL');
    started.length = 0;

    const second = await start({ port: portOf(first.url) });
    expect(await query(second.url, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
    expect(processState(postmaster)).not.toBe('running');
  });

  it('connects Herald through the Unix socket in the cluster directory, and still listens on TCP loopback for other programs', async () => {
    const database = await start();
    expect(new URL(database.url).searchParams.get('host')).toBe(path.join(root, 'postgres'));
    // A connection over a Unix socket has no client address.
    expect(await query(database.url, 'SELECT inet_client_addr() AS addr')).toEqual([{ addr: null }]);
    const tcp = `postgres://herald:fault-test@127.0.0.1:${portOf(database.url)}/herald`;
    expect(await query(tcp, 'SELECT inet_client_addr()::text AS addr')).toEqual([{ addr: '127.0.0.1/32' }]);
  });

  it('starts over the socket lock file of a SIGKILLed postmaster whose process id another process of its account holds now', async () => {
    const first = await start();
    const port = portOf(first.url);
    const postmaster = postmasterPid();
    for (const pid of [postmaster, ...descendants(postmaster)]) process.kill(pid, 'SIGKILL');
    started.length = 0;
    // Postgres takes a lock file naming a live process it may signal for another postmaster's.
    const user = postgresUser();
    const holder = spawn('sleep', ['60'], user ? { uid: user.uid, gid: user.gid } : {});
    try {
      const lock = path.join(root, 'postgres', `.s.PGSQL.${port}.lock`);
      const [, ...rest] = readFileSync(lock, 'utf8').split('\n');
      writeFileSync(lock, [String(holder.pid), ...rest].join('\n'));
      const second = await start({ port });
      expect(await query(second.url, 'SELECT inet_client_addr() AS addr')).toEqual([{ addr: null }]);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('connects over TCP loopback when the socket path would be too long for the kernel', async () => {
    const deep = path.join(root, 'd'.repeat(60), 'e'.repeat(40), 'postgres');
    const database = await start({ directory: deep });
    expect(new URL(database.url).searchParams.get('host')).toBeNull();
    expect(await query(database.url, 'SELECT inet_client_addr()::text AS addr')).toEqual([{ addr: '127.0.0.1/32' }]);
  });

  it('kills the backends a SIGKILLed postmaster orphaned, which would keep its shared memory', async () => {
    const first = await start();
    const client = new Client({ connectionString: first.url });
    await client.connect();
    client.on('error', () => undefined);
    const postmaster = postmasterPid();
    const [{ pid: backend }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
    // Stopped, the backend cannot notice its postmaster died and stays attached, as a busy one would for a while.
    process.kill(backend, 'SIGSTOP');
    process.kill(postmaster, 'SIGKILL');
    await until(async () => processState(postmaster), (state) => state !== 'running', 'the postmaster to die', 5_000);
    started.length = 0;

    const second = await start({ port: portOf(first.url) });
    expect(processState(backend)).not.toBe('running');
    expect(await query(second.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
    client.end().catch(() => undefined);
  });

  it('refuses, deleting nothing, a cluster directory that holds something else', async () => {
    const directory = path.join(root, 'postgres');
    mkdirSync(directory);
    writeFileSync(path.join(directory, 'precious.txt'), 'keep me');
    await expect(start({ directory })).rejects.toThrow(`embedded Postgres: ${directory} is not empty and holds no Postgres cluster (no PG_VERSION)`);
    expect(readFileSync(path.join(directory, 'precious.txt'), 'utf8')).toBe('keep me');
  });

  it('clears a lock file whose postmaster is a zombie', async () => {
    const first = await start();
    const lock = readFileSync(path.join(root, 'postgres', 'postmaster.pid'), 'utf8');
    await started.pop()!.stop();
    // `sleep 60` never reaps the shell's background child: it stays a zombie, as a dead postmaster nobody reaped does.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const zombie = Number((await new Promise<Buffer>((resolve) => parent.stdout!.once('data', resolve))).toString().trim());
    await until(async () => processState(zombie), (state) => state === 'zombie', 'the zombie', 5_000);
    const [, ...rest] = lock.split('\n');
    writeFileSync(path.join(root, 'postgres', 'postmaster.pid'), [String(zombie), ...rest].join('\n'));
    try {
      const second = await start({ port: portOf(first.url) });
      expect(await query(second.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('stops a Postgres that an earlier run left running on the cluster, and starts its own', async () => {
    const leftover = await start();
    const port = portOf(leftover.url);
    const oldPostmaster = postmasterPid();
    const current = await start({ port });
    expect(processState(oldPostmaster)).not.toBe('running');
    expect(postmasterPid()).not.toBe(oldPostmaster);
    expect(await query(current.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
  });

  it('names the part and the variable when its port is taken, within seconds', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const began = Date.now();
    try {
      await expect(start({ port })).rejects.toThrow(StartupError);
      await expect(start({ port })).rejects.toThrow(`embedded Postgres: 127.0.0.1:${port} is already in use by another program`);
      await expect(start({ port })).rejects.toThrow('EMBEDDED_POSTGRES_PORT');
    } finally {
      blocker.close();
    }
    expect(Date.now() - began).toBeLessThan(20_000);
  });

  it('runs with 64MB of shared buffers unless given a size, over what postgresql.conf says', async () => {
    const first = await start();
    expect(await query(first.url, 'SHOW shared_buffers')).toEqual([{ shared_buffers: '64MB' }]);
    await started.pop()!.stop();
    appendFileSync(path.join(root, 'postgres', 'postgresql.conf'), '\nshared_buffers = 256MB\n');
    const second = await start({ port: portOf(first.url), sharedBuffers: '32MB' });
    expect(await query(second.url, 'SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
  });

  it('names EMBEDDED_POSTGRES_SHARED_BUFFERS when Postgres refuses the size it was given, and leaves the cluster to start again', async () => {
    const first = await start();
    await query(first.url, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)`);
    await started.pop()!.stop();
    const failure = start({ port: portOf(first.url), sharedBuffers: '99999GB' });
    await expect(failure).rejects.toThrow(StartupError);
    await expect(failure).rejects.toThrow(/parameter "shared_buffers"/);
    await expect(failure).rejects.toThrow('Set EMBEDDED_POSTGRES_SHARED_BUFFERS to a size this machine can give Postgres');
    const again = await start({ port: portOf(first.url) });
    expect(await query(again.url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
  });

  it("fails with the last lines of Postgres's own log when it cannot start", async () => {
    const first = await start();
    await started.pop()!.stop();
    appendFileSync(path.join(root, 'postgres', 'postgresql.conf'), '\nshared_buffers = lots\n');
    const failure = start({ port: portOf(first.url) });
    await expect(failure).rejects.toThrow(/^embedded Postgres: exited \(code 1\) before it was ready/);
    await expect(failure).rejects.toThrow(`last lines of ${path.join(root, 'postgres.log')}`);
    await expect(failure).rejects.toThrow(/invalid value for parameter "shared_buffers": "lots"/);
    await expect(failure).rejects.toThrow(`Correct ${path.join(root, 'postgres', 'postgresql.conf')}: Postgres refuses a setting in it`);
    await expect(failure).rejects.not.toThrow('EMBEDDED_POSTGRES_SHARED_BUFFERS');
  });

  it('reports a DATABASE_URL it cannot connect to by its address, without the password', async () => {
    const port = await freePort();
    const failure = openDatabase(`postgres://herald:s3cret@127.0.0.1:${port}/herald`);
    await expect(failure).rejects.toThrow(StartupError);
    await expect(failure).rejects.toThrow(`Postgres: cannot connect to postgres://herald:***@127.0.0.1:${port}/herald: connection refused`);
    await expect(failure).rejects.not.toThrow('s3cret');
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;
  asRoot('as root, runs from a private checkout and DATA_DIR (mode 0700) by placing what the postgres account needs where it can reach it', async () => {
    const checkout = path.join(root, 'private');
    const packageDir = path.join(checkout, 'node_modules', 'linux-package');
    cpSync(path.join(packagedNativeDir(), '..'), packageDir, { recursive: true, verbatimSymlinks: true });
    chmodSync(checkout, 0o700);
    const directory = path.join(checkout, 'data', 'postgres');

    const database = await start({ directory, nativeDir: path.join(packageDir, 'native') });
    await query(database.url, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)`);
    expect(lstatSync(directory).isSymbolicLink()).toBe(true);
    expect(readlinkSync(directory).startsWith(path.join(ROOT_SHARED_DIR, 'clusters'))).toBe(true);
    await started.pop()!.stop();

    const again = await start({ directory, nativeDir: path.join(packageDir, 'native'), port: portOf(database.url) });
    expect(await query(again.url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
    await started.pop()!.stop();
    rmSync(readlinkSync(directory), { recursive: true, force: true });
  });

  asRoot('as root, refuses a DATA_DIR that another account can write to', async () => {
    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    await expect(start({ directory: path.join(shared, 'postgres') })).rejects.toThrow(
      `embedded Postgres: DATA_DIR ${shared} belongs to uid 0 or is writable by other accounts, and Herald runs as root`,
    );
  });
});

describe('EMBEDDED_POSTGRES_SHARED_BUFFERS', () => {
  const sharedBuffers = (value: string | undefined) => loadConfig({ ...process.env, EMBEDDED_POSTGRES_SHARED_BUFFERS: value }).embeddedPostgresSharedBuffers;

  it('takes whole megabytes or gigabytes from 16MB to what Postgres can address, and leaves the default to the embedded Postgres when unset', () => {
    for (const size of ['16MB', '64MB', '2GB', '8191GB', '8388607MB']) expect(sharedBuffers(size)).toBe(size);
    expect(sharedBuffers(undefined)).toBeUndefined();
  });

  it.each(['lots', '64', '0MB', '15MB', '064MB', '64 MB', '64mb', '-1MB', '1.5GB', '64MB; DROP', '1TB', '8192GB', '8388608MB', '99999GB'])(
    'refuses %p, naming the variable',
    (value) => {
      expect(() => sharedBuffers(value)).toThrow(ConfigError);
      expect(() => sharedBuffers(value)).toThrow(`EMBEDDED_POSTGRES_SHARED_BUFFERS must be a size from 16MB to 8388607MB such as 64MB or 1GB, got "${value}"`);
    },
  );
});

/** The advice a failed start-up gives, from the last lines of Postgres's log as Postgres 17 writes them. */
describe("embedded Postgres's start-up hint", () => {
  const line = (level: string, text: string) => `2026-11-29 12:42:13.291 UTC [22405] ${level}:  ${text}`;

  it('names EMBEDDED_POSTGRES_SHARED_BUFFERS when the machine cannot give the shared memory, or Postgres refuses the size on its command line', () => {
    const unmapped = [
      line('FATAL', 'could not map anonymous shared memory: Cannot allocate memory'),
      line('HINT', "This error usually means that PostgreSQL's request for a shared memory segment exceeded available memory, swap space, or huge pages."),
    ].join('\n');
    const refused = line('FATAL', 'invalid value for parameter "shared_buffers": "99999GB"');
    for (const tail of [unmapped, refused]) expect(startupHint(tail)).toBe('Set EMBEDDED_POSTGRES_SHARED_BUFFERS to a size this machine can give Postgres (64MB by default).');
  });

  it('points at postgresql.conf, not the variable, when the bad setting is in the file', () => {
    const tail = [
      line('LOG', 'invalid value for parameter "shared_buffers": "lots"'),
      line('FATAL', 'configuration file "/data/postgres/postgresql.conf" contains errors'),
    ].join('\n');
    expect(startupHint(tail)).toBe('Correct /data/postgres/postgresql.conf: Postgres refuses a setting in it (see its log below).');
  });

  it('keeps the shared memory of an older postmaster for the port and disk advice, not the size', () => {
    expect(startupHint(line('FATAL', 'pre-existing shared memory block (key 5433001, ID 3) is still in use'))).toBeUndefined();
    expect(startupHint(line('LOG', 'could not bind IPv4 address "127.0.0.1": Address already in use'))).toBe('Set EMBEDDED_POSTGRES_PORT to a free port.');
    expect(startupHint(line('FATAL', 'could not write to file "pg_wal/xlogtemp.1": No space left on device'))).toBe('The disk is full: free some space and start again.');
  });
});
