import { Socket } from 'node:net';
import { StartupError } from './startup-error';

/** Whether something accepts TCP connections on host:port. */
export function accepts(address: string): Promise<boolean> {
  const colon = address.lastIndexOf(':');
  const [host, port] = [address.slice(0, colon), Number(address.slice(colon + 1))];
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** Fails start-up of `part` when another program already listens on `address`, naming the variable that moves it. */
export async function ensureFree(part: string, address: string, variable: string): Promise<void> {
  if (!(await accepts(address))) return;
  throw new StartupError(part, `${address} is already in use by another program`, {
    hint: `Stop that program, or set ${variable} to a free port.`,
  });
}
