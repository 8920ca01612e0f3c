import { endpoint, type RouteTable } from '../http/endpoint';
import { singleFileUpload } from '../http/file-upload';
import { readBody } from '../http/read-body';
import type { EndpointDoc } from '../openapi/types';
import { BulkContactsBody, Job, JobAccepted } from './jobs-dtos';
import * as docs from './jobs-docs';
import { jobView, type BulkType } from './jobs-service';

/** The largest CSV an import takes: 5 MiB. */
export const IMPORT_LIMIT_BYTES = 5 * 1024 * 1024;

/** Reads the one CSV file of the multipart body into `req.file`: 400, 413 or 422 past the upload limits. */
const csvUpload = singleFileUpload(IMPORT_LIMIT_BYTES, 'CSV file');

/** `POST /contacts/bulk-*`: queues one bulk operation over the contact ids. */
const bulk = (path: string, type: BulkType, doc: EndpointDoc) =>
  endpoint<BulkContactsBody>({
    method: 'post',
    path,
    credential: 'secret',
    body: BulkContactsBody,
    doc,
    handle: ({ services, project, body }): Promise<JobAccepted> => services.jobs.queueBulk(project.id, type, body.contactIds),
  });

/** CSV imports and bulk operations, queued as workflows (`/contacts/import`, `/contacts/bulk-*`). */
export const jobsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Job, JobAccepted],
  endpoints: [
    endpoint({
      method: 'post',
      path: '/contacts/import',
      credential: 'secret',
      doc: docs.importContacts,
      handle: async ({ services, project, req, res }): Promise<JobAccepted> => {
        await readBody(req, res, [csvUpload]);
        return services.jobs.queueImport(project.id, req.file!.originalname, req.file!.buffer);
      },
    }),
    endpoint({
      method: 'get',
      path: '/contacts/import/{jobId}',
      credential: 'secret',
      doc: docs.getImportJob,
      handle: async ({ services, project, params }) => jobView(await services.jobs.get(project.id, params.jobId, 'import')),
    }),
    bulk('/contacts/bulk-subscribe', 'BULK_SUBSCRIBE', docs.bulkSubscribeContacts),
    bulk('/contacts/bulk-unsubscribe', 'BULK_UNSUBSCRIBE', docs.bulkUnsubscribeContacts),
    bulk('/contacts/bulk-delete', 'BULK_DELETE', docs.bulkDeleteContacts),
    endpoint({
      method: 'get',
      path: '/contacts/bulk/{jobId}',
      credential: 'secret',
      doc: docs.getBulkJob,
      handle: async ({ services, project, params }) => jobView(await services.jobs.get(project.id, params.jobId, 'bulk')),
    }),
  ],
};
