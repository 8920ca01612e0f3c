import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';

/** A bare server listening on a free port of 127.0.0.1. */
export interface BaselineServer {
  port: number;
  stop: () => Promise<void>;
}

/**
 * The floor the benches hold Herald against: a bare `node:http` server that parses each request's
 * JSON body and hands it to `insert` (one INSERT through a pool of `poolSize` connections), then
 * answers `{"success":true}`; 500 when either fails.
 */
export async function startBaselineServer(databaseUrl: string, poolSize: number, insert: (pool: Pool, body: unknown) => Promise<unknown>): Promise<BaselineServer> {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        await insert(pool, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      } catch {
        res.writeHead(500).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}
