import { ArrayMaxSize, ArrayMinSize, IsArray, IsUUID } from 'class-validator';
import { Router } from 'express';
import { singleFileUpload } from '../http/file-upload';
import { parseBody } from '../http/validate';
import { jobView, type BulkType, type JobsService } from './jobs-service';

/** The largest CSV an import takes: 5 MiB. */
export const IMPORT_LIMIT_BYTES = 5 * 1024 * 1024;

class BulkBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsUUID('all', { each: true }) contactIds: string[];
}

const BULK_ROUTES: Record<string, BulkType> = {
  '/contacts/bulk-subscribe': 'BULK_SUBSCRIBE',
  '/contacts/bulk-unsubscribe': 'BULK_UNSUBSCRIBE',
  '/contacts/bulk-delete': 'BULK_DELETE',
};

/** CSV imports and bulk operations, queued as workflows (`/contacts/import`, `/contacts/bulk-*`). */
export function jobsRouter(jobs: JobsService): Router {
  const router = Router();

  router.post('/contacts/import', singleFileUpload(IMPORT_LIMIT_BYTES, 'CSV file'), async (req, res) => {
    res.status(202).json(await jobs.queueImport(req.project!.id, req.file!.originalname, req.file!.buffer));
  });

  router.get('/contacts/import/:jobId', async (req, res) => {
    res.json(jobView(await jobs.get(req.project!.id, req.params.jobId, 'import')));
  });

  for (const [path, type] of Object.entries(BULK_ROUTES)) {
    router.post(path, async (req, res) => {
      const body = parseBody(BulkBody, req.body);
      res.status(202).json(await jobs.queueBulk(req.project!.id, type, body.contactIds));
    });
  }

  router.get('/contacts/bulk/:jobId', async (req, res) => {
    res.json(jobView(await jobs.get(req.project!.id, req.params.jobId, 'bulk')));
  });

  return router;
}
