import type { Express } from 'express';
import { createServer, type Server } from 'node:http';
import { requestListener } from '../http/lean-endpoint';

/** Listens on a port (the app's lean routes ahead of it) and returns a close function that drains connections. */
export async function listen(app: Express, port: number, host?: string): Promise<{ server: Server; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve, reject) => {
    const listening = createServer(requestListener(app));
    listening.once('error', reject);
    const ready = () => resolve(listening);
    if (host) listening.listen(port, host, ready);
    else listening.listen(port, ready);
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      }),
  };
}
