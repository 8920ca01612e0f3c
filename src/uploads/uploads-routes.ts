import type { Request, Response } from 'express';
import { endpoint, type RouteTable } from '../http/endpoint';
import { ApiError } from '../http/errors';
import { singleFileUpload } from '../http/file-upload';
import { readBody } from '../http/read-body';
import { UploadedImage } from './uploads-dtos';
import * as docs from './uploads-docs';
import { IMAGE_LIMIT_BYTES } from './uploads-service';

/** Stored files never change (each has a fresh name), so caches may keep them for a year. */
const ONE_YEAR = '365d';

const imageUpload = singleFileUpload(IMAGE_LIMIT_BYTES, 'image');

/**
 * Sends a stored file as express.static did: long caching, no sniffing, no scripts; a file that is
 * not there (a path ending in `/` included, or a name that leaves the folder) is the unknown route's 404.
 * A failure once sending began (the client went away) leaves the answer as it is.
 */
function sendStored(req: Request, res: Response, directory: string, file: string): Promise<void> {
  const unknown = () => new ApiError(404, 'NOT_FOUND', `No route for ${req.method} ${req.path}`);
  return new Promise((resolve, reject) => {
    if (req.path.endsWith('/')) {
      reject(unknown());
      return;
    }
    res.sendFile(
      file,
      {
        root: directory,
        immutable: true,
        maxAge: ONE_YEAR,
        headers: { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'" },
      },
      (err?: Error & { status?: number; statusCode?: number }) => {
        if (!err || res.headersSent) resolve();
        else if ((err.statusCode ?? err.status ?? 500) < 500 || (err as { code?: string }).code === 'EISDIR') {
          reject(unknown());
        } else reject(err);
      },
    );
  });
}

/** `POST /uploads/image` (secret key) and the public `GET /uploads/{projectId}/{file}`. */
export const uploadsRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint({
      method: 'post',
      path: '/uploads/image',
      credential: 'secret',
      bodyKind: 'own',
      doc: docs.uploadImage,
      handle: async ({ services, project, req, res }): Promise<UploadedImage> => {
        await readBody(req, res, [imageUpload]);
        return services.uploads.storeImage(project.id, req.file!.buffer);
      },
    }),
    endpoint({
      method: 'get',
      path: '/uploads/{projectId}/{file}',
      credential: 'none',
      bodyKind: 'own',
      doc: docs.getUploadedImage,
      handle: ({ services, req, res, params }) => sendStored(req, res, services.uploads.directory, `${params.projectId}/${params.file}`),
    }),
  ],
};
