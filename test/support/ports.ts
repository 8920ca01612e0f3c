import { createServer } from 'node:net';

/**
 * Where free ports are looked for: below the ephemeral range (Linux's 32768-60999, the BSDs' and
 * macOS's 49152-65535) from which every outgoing connection on the machine takes its local port,
 * so that between the look-up and the server's own bind no connection of another test can take
 * the port (a server that binds several ports, like the Temporal dev server, failed so now and then).
 */
const LOW = 20_000;
const HIGH = 32_000;

/** Whether a TCP server can listen on loopback `port` right now (0: any); answers the port it got, or undefined. */
function listenable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** A TCP port on loopback that is free right now, outside the ephemeral range when one there is. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenable(LOW + Math.floor(Math.random() * (HIGH - LOW)));
    if (port !== undefined) return port;
  }
  const port = await listenable(0);
  if (port === undefined) throw new Error('no free TCP port on loopback');
  return port;
}
