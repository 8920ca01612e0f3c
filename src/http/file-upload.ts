import type { RequestHandler } from 'express';
import multer, { MulterError } from 'multer';
import { ApiError, validationError } from './errors';

/**
 * Parses a multipart body holding one file in the field `file`, kept in memory: 413
 * PAYLOAD_TOO_LARGE beyond `limitBytes`, 422 for any other multipart problem.
 */
export function singleFileUpload(limitBytes: number, what: string): RequestHandler {
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: limitBytes, files: 1 } }).single('file');
  return (req, res, next) => {
    upload(req, res, (err: unknown) => {
      if (err instanceof MulterError && err.code === 'LIMIT_FILE_SIZE') {
        next(new ApiError(413, 'PAYLOAD_TOO_LARGE', `The ${what} exceeds the limit of ${limitBytes} bytes`));
      } else if (err) {
        next(validationError([{ field: 'file', code: 'invalid', message: String((err as Error).message) }]));
      } else if (!req.file) {
        next(validationError([{ field: 'file', code: 'required', message: `Send the ${what} as multipart field "file"` }]));
      } else {
        next();
      }
    });
  };
}
