import { commonErrors, described, errorResponse, jsonResponse, MULTIPART_LIMITS_NOTE, object, pathParam, schemaRef } from '../openapi/builders';
import type { EndpointDoc, SuccessDoc, Tag } from '../openapi/types';
import { Job, JobAccepted } from './jobs-dtos';

export const tag: Tag = {
  name: 'Contact jobs',
  description:
    'CSV import and bulk operations on contacts. Each is queued, answers 202 with a `jobId` at once and runs in ' +
    'the background (surviving restarts); its progress is polled. Secret key.',
};

const exampleJob = {
  jobId: '9c4e1f70-3b2a-4d8e-b6f1-7a0c5d2e8f44',
  type: 'IMPORT',
  status: 'COMPLETED',
  total: 1200,
  processed: 1200,
  succeeded: 1198,
  failed: 2,
  errors: [
    { row: 17, message: 'Invalid email: "ada@"' },
    { row: 803, message: 'Invalid email: ""' },
  ],
  createdAt: '2025-01-01T12:00:00.000Z',
  completedAt: '2025-01-01T12:00:09.000Z',
};

const queued: SuccessDoc = {
  status: 202,
  description: 'Queued; poll the job for its progress.',
  shape: JobAccepted,
  example: { jobId: exampleJob.jobId },
};

const jobId = pathParam('jobId', 'The job, as answered when it was queued.');

export const importContacts: EndpointDoc = {
  operationId: 'importContacts',
  summary: 'Import contacts from CSV',
  description: [
    'Uploads a CSV file (at most 5 MiB, 5,242,880 bytes) as the multipart field `file`; the rows are upserted ' +
      'by email in the background. Several imports may run at once. ' +
      MULTIPART_LIMITS_NOTE,
    '',
    '- Column `email` is required (the header is matched case-insensitively and trimmed).',
    '- Optional column `subscribed`: `true`/`false`, `1`/`0`, `yes`/`no`. New contacts are subscribed unless ' +
      'it says otherwise.',
    '- Every other column becomes a `data` key named by its header (spaces allowed), under the same rules as ' +
      'JSON `data` (reserved keys dropped, type inference sticky per project). An empty cell is ignored.',
    '- Cells are typed as JSON values would be: `42`, `3.14` are numbers, `true`/`false` booleans, ' +
      '`YYYY-MM-DD` or a full ISO 8601 UTC time dates, anything else text. Digits with a leading zero ' +
      '(`02134`) stay text.',
    '',
    "Rows that fail are counted in `failed` and listed (by `row`) in the job's `errors`.",
  ].join('\n'),
  requestBody: {
    contentType: 'multipart/form-data',
    schema: object({ file: described({ type: 'string', contentMediaType: 'text/csv' }, 'The CSV file, with a header row.') }),
  },
  response: queued,
  errors: {
    ...commonErrors(400),
    '413': errorResponse(413, 'PAYLOAD_TOO_LARGE', 'The file is larger than 5 MiB', { message: 'The file exceeds the limit of 5242880 bytes' }),
    '422': jsonResponse(
      'The upload is not a CSV file, has no `file` field, or has no `email` column (`VALIDATION_ERROR`).',
      schemaRef('ErrorResponse'),
    ),
  },
};

/** One of the three bulk operations over a list of contact ids. */
function bulkOperation(operationId: string, summary: string, description: string): EndpointDoc {
  return {
    operationId,
    summary,
    description:
      `${description} Takes 1 to 1,000 contact ids (otherwise 422) and runs in the background; poll ` +
      '`GET /contacts/bulk/{jobId}`.',
    response: queued,
  };
}

export const bulkSubscribeContacts = bulkOperation('bulkSubscribeContacts', 'Subscribe contacts in bulk', 'Sets `subscribed: true` on the contacts.');
export const bulkUnsubscribeContacts = bulkOperation('bulkUnsubscribeContacts', 'Unsubscribe contacts in bulk', 'Sets `subscribed: false` on the contacts.');
export const bulkDeleteContacts = bulkOperation('bulkDeleteContacts', 'Delete contacts in bulk', 'Permanently deletes the contacts.');

/** One of the two job-status endpoints. */
function jobStatus(operationId: string, summary: string, kinds: string): EndpointDoc {
  return {
    operationId,
    summary,
    description: `The progress of ${kinds}. A job of another project is unknown (404).`,
    parameters: [jobId],
    response: { description: 'The job.', shape: Job, example: exampleJob },
  };
}

export const getImportJob = jobStatus('getImportJob', 'Get an import job', 'a CSV import');
export const getBulkJob = jobStatus('getBulkJob', 'Get a bulk job', 'a bulk subscribe, unsubscribe or delete');
