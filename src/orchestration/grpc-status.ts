import { isGrpcServiceError } from '@temporalio/client';

/** The gRPC status codes Herald tells apart in a Temporal server's answers. */
export const GrpcStatus = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The gRPC status of an error of a Temporal call: on the error itself (the connection's
 * services answer with the gRPC error) or on its cause (the client's own errors wrap it).
 */
export function grpcCode(err: unknown): number | undefined {
  if (isGrpcServiceError(err)) return err.code;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return isGrpcServiceError(cause) ? cause.code : undefined;
}
