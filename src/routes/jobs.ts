import { ArrayMaxSize, ArrayMinSize, IsArray, IsUUID } from 'class-validator';
import { Router } from 'express';
import multer, { MulterError } from 'multer';
import { ApiError, validationError } from '../http/errors';
import { parseBody } from '../http/validate';
import { jobView, type BulkType, type JobsService } from '../jobs/jobs-service';

/** The largest CSV an import takes: 5 MiB. */
export const IMPORT_LIMIT_BYTES = 5 * 1024 * 1024;

class BulkBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsUUID('all', { each: true }) contactIds: string[];
}

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: IMPORT_LIMIT_BYTES, files: 1 } }).single('file');

const BULK_ROUTES: Record<string, BulkType> = {
  '/contacts/bulk-subscribe': 'BULK_SUBSCRIBE',
  '/contacts/bulk-unsubscribe': 'BULK_UNSUBSCRIBE',
  '/contacts/bulk-delete': 'BULK_DELETE',
};

/** CSV imports and bulk operations, queued as workflows (`/contacts/import`, `/contacts/bulk-*`). */
export function jobsRouter(jobs: JobsService): Router {
  const router = Router();

  router.post('/contacts/import', (req, res, next) => {
    upload(req, res, (err: unknown) => {
      if (err instanceof MulterError && err.code === 'LIMIT_FILE_SIZE') {
        next(new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The CSV file exceeds the import limit of 5 MB'));
      } else if (err) {
        next(validationError([{ field: 'file', code: 'invalid', message: String((err as Error).message) }]));
      } else {
        next();
      }
    });
  }, async (req, res) => {
    if (!req.file) throw validationError([{ field: 'file', code: 'required', message: 'Send the CSV as multipart field "file"' }]);
    res.status(202).json(await jobs.queueImport(req.project!.id, req.file.originalname, req.file.buffer));
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
