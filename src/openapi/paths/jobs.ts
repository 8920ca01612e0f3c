import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  errorResponse,
  jsonBody,
  jsonResponse,
  MULTIPART_LIMITS_NOTE,
  object,
  pathParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import type { Operation, PathModule } from '../types';

const jobId = pathParam('jobId', 'The job, as answered when it was queued.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };

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

const queued = jsonResponse('Queued; poll the job for its progress.', schemaRef('JobAccepted'), {
  ...okHeaders,
  example: { jobId: exampleJob.jobId },
});

/** One of the three bulk operations over a list of contact ids. */
function bulkOperation(operationId: string, summary: string, description: string): Operation {
  return {
    operationId,
    summary,
    description:
      `${description} Takes 1 to 1,000 contact ids (otherwise 422) and runs in the background; poll ` +
      '`GET /contacts/bulk/{jobId}`.',
    requestBody: jsonBody(schemaRef('BulkContactsBody')),
    responses: { '202': queued, ...commonErrors(400, ...secretKeyErrors, 413, 422) },
  };
}

/** One of the two job-status endpoints. */
function jobStatus(operationId: string, summary: string, kinds: string): Operation {
  return {
    operationId,
    summary,
    description: `The progress of ${kinds}. A job of another project is unknown (404).`,
    responses: {
      '200': jsonResponse('The job.', schemaRef('Job'), { ...okHeaders, example: exampleJob }),
      ...commonErrors(...secretKeyErrors, 404),
    },
  };
}

/** CSV import and bulk subscribe, unsubscribe and delete: queued background jobs whose status is polled. */
export const pathModule: PathModule = {
  tag: {
    name: 'Contact jobs',
    description:
      'CSV import and bulk operations on contacts. Each is queued, answers 202 with a `jobId` at once and runs in ' +
      'the background (surviving restarts); its progress is polled. Secret key.',
  },
  schemas: {
    JobAccepted: object({ jobId: uuid }),
    BulkContactsBody: object({ contactIds: { ...arrayOf(uuid), minItems: 1, maxItems: 1000 } }),
    Job: object({
      jobId: uuid,
      type: { type: 'string', enum: ['IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'] },
      status: described(
        { type: 'string', enum: ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] },
        '`COMPLETED`, `FAILED` and `CANCELLED` are final.',
      ),
      total: described({ type: 'integer', minimum: 0 }, 'Rows (import) or contact ids (bulk) to process.'),
      processed: { type: 'integer', minimum: 0 },
      succeeded: { type: 'integer', minimum: 0 },
      failed: { type: 'integer', minimum: 0 },
      errors: described(
        {
          ...arrayOf(
            object(
              {
                row: described({ type: 'integer' }, 'The CSV row, for an import.'),
                contactId: described(uuid, 'The contact id, for a bulk operation.'),
                message: { type: 'string' },
              },
              ['message'],
            ),
          ),
          maxItems: 100,
        },
        'The first 100 failures.',
      ),
      createdAt: dateTime,
      completedAt: described({ ...dateTime, type: ['string', 'null'] }, 'Null until the job reaches a final status.'),
    }),
  },
  paths: {
    '/contacts/import': {
      post: {
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
          required: true,
          content: {
            'multipart/form-data': {
              schema: object({
                file: described(
                  { type: 'string', contentMediaType: 'text/csv' },
                  'The CSV file, with a header row.',
                ),
              }),
            },
          },
        },
        responses: {
          '202': queued,
          '413': errorResponse(413, 'PAYLOAD_TOO_LARGE', 'The file is larger than 5 MiB', {
            message: 'The file exceeds the limit of 5242880 bytes',
          }),
          '422': jsonResponse(
            'The upload is not a CSV file, has no `file` field, or has no `email` column (`VALIDATION_ERROR`).',
            schemaRef('ErrorResponse'),
          ),
          ...commonErrors(400, ...secretKeyErrors),
        },
      },
    },
    '/contacts/import/{jobId}': {
      parameters: [jobId],
      get: jobStatus('getImportJob', 'Get an import job', 'a CSV import'),
    },
    '/contacts/bulk-subscribe': {
      post: bulkOperation(
        'bulkSubscribeContacts',
        'Subscribe contacts in bulk',
        'Sets `subscribed: true` on the contacts.',
      ),
    },
    '/contacts/bulk-unsubscribe': {
      post: bulkOperation(
        'bulkUnsubscribeContacts',
        'Unsubscribe contacts in bulk',
        'Sets `subscribed: false` on the contacts.',
      ),
    },
    '/contacts/bulk-delete': {
      post: bulkOperation('bulkDeleteContacts', 'Delete contacts in bulk', 'Permanently deletes the contacts.'),
    },
    '/contacts/bulk/{jobId}': {
      parameters: [jobId],
      get: jobStatus('getBulkJob', 'Get a bulk job', 'a bulk subscribe, unsubscribe or delete'),
    },
  },
};
