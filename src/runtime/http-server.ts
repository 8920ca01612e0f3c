import type { Express } from 'express';
import type { Server } from 'node:http';

/** Listens on a port and returns a close function that drains connections. */
export async function listen(app: Express, port: number): Promise<{ server: Server; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, () => resolve(listening));
    listening.once('error', reject);
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
