import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** A Temporal client; the caller calls `close()` at shutdown (its connection is closed only through it). */
export interface TemporalClient {
  client: Client;
  /** Closes the connection; calls still in flight fail instead of being retried. */
  close(): Promise<void>;
}

/**
 * Connects a Temporal client to a namespace at host:port.
 *
 * The SDK's gRPC retry treats "Channel closed before call started", which closing the
 * connection gives every call still queued, as retryable; its retry then fires on a timer
 * against the closed channel and throws out of that timer, crashing the process at shutdown.
 * The retry here keeps the SDK's policy but stops retrying once the connection is closing.
 */
export async function connectTemporal(address: string, namespace: string): Promise<TemporalClient> {
  let closing = false;
  const policy = defaultGrpcRetryOptions();
  const retry = makeGrpcRetryInterceptor({
    ...policy,
    retryableDecider: (attempt, status) => !closing && policy.retryableDecider(attempt, status),
  });
  const connection = await Connection.connect({ address, interceptors: [retry] });
  return {
    client: new Client({ connection, namespace }),
    close: async () => {
      closing = true;
      await connection.close();
    },
  };
}
