import express, { Router } from 'express';
import { singleFileUpload } from '../http/file-upload';
import { IMAGE_LIMIT_BYTES, type UploadsService } from './uploads-service';

/** Stored files never change (each has a fresh name), so caches may keep them for a year. */
const ONE_YEAR = '365d';

/** `POST /uploads/image` (secret key) and the public `GET /uploads/{projectId}/{file}`. */
export function uploadsRouter(uploads: UploadsService): Router {
  const router = Router();

  router.post('/uploads/image', singleFileUpload(IMAGE_LIMIT_BYTES, 'image'), async (req, res) => {
    res.status(201).json(await uploads.storeImage(req.project!.id, req.file!.buffer));
  });

  router.use(
    '/uploads',
    express.static(uploads.directory, {
      index: false,
      redirect: false,
      immutable: true,
      maxAge: ONE_YEAR,
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "default-src 'none'");
      },
    }),
  );
  return router;
}
