import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

/** A Temporal client with the connection under it, which the caller closes at shutdown. */
export interface TemporalClient {
  connection: Connection;
  client: Client;
}

/**
 * Connects a Temporal client to the configured namespace: at `address`, or at the configured
 * TEMPORAL_ADDRESS (`connectTemporal(config)`), or at an explicit address and namespace.
 */
export async function connectTemporal(config: Pick<Config, 'temporalAddress' | 'temporalNamespace'>, address?: string): Promise<TemporalClient>;
export async function connectTemporal(address: string, namespace: string): Promise<TemporalClient>;
export async function connectTemporal(
  target: string | Pick<Config, 'temporalAddress' | 'temporalNamespace'>,
  second?: string,
): Promise<TemporalClient> {
  const [address, namespace] =
    typeof target === 'string' ? [target, second!] : [second ?? target.temporalAddress, target.temporalNamespace];
  if (!address) throw new Error('No Temporal address: set TEMPORAL_ADDRESS or start the embedded Temporal server first');
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }) };
}
