import { Client, Connection } from '@temporalio/client';

/** A Temporal client with the connection under it, which the caller closes at shutdown. */
export interface TemporalClient {
  connection: Connection;
  client: Client;
}

/** Connects a Temporal client to a namespace at host:port. */
export async function connectTemporal(address: string, namespace: string): Promise<TemporalClient> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }) };
}
