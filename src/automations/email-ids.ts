import { createHash } from 'node:crypto';

/** The UUID namespace of workflow emails (a fixed random UUID; changing it would resend in-flight steps). */
const WORKFLOW_EMAIL_NAMESPACE = Buffer.from('3b8f5e0c7d2a4f19a6c1e2d4b5f60718', 'hex');

/**
 * The id of the one email a SEND_EMAIL step sends in an execution: a name-based UUID (version 5,
 * RFC 9562) of the execution and step, so every attempt of the step writes and delivers the same record.
 */
export function workflowEmailId(executionId: string, stepId: string): string {
  const hash = createHash('sha1').update(WORKFLOW_EMAIL_NAMESPACE).update(`${executionId}/${stepId}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
