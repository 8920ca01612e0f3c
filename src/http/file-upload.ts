import type { RequestHandler } from 'express';
import multer, { MulterError } from 'multer';
import { ApiError, badRequest, validationError } from './errors';

/** What a multipart body may hold besides its one file: a few small text fields, nothing more. */
export const MULTIPART_LIMITS = { files: 1, fields: 10, parts: 11, fieldSize: 16 * 1024, fieldNameSize: 100, headerPairs: 20 } as const;

/** The answer to a multipart body past one of the limits, saying which. */
function limitError(code: string, what: string, limitBytes: number): ApiError {
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', `The ${what} exceeds the limit of ${limitBytes} bytes`);
    case 'LIMIT_FIELD_VALUE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', `A form field exceeds the limit of ${MULTIPART_LIMITS.fieldSize} bytes`);
    case 'LIMIT_FILE_COUNT':
      return badRequest(`Send one file only, as multipart field "file"`);
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_PART_COUNT':
      return badRequest(`A multipart body may hold the file and at most ${MULTIPART_LIMITS.fields} other fields`);
    case 'LIMIT_FIELD_KEY':
    case 'LIMIT_FIELD_NESTING':
    case 'LIMIT_FIELD_ARRAY_INDEX':
      return badRequest(`Form field names must be plain names of at most ${MULTIPART_LIMITS.fieldNameSize} characters`);
    case 'LIMIT_UNEXPECTED_FILE':
      return validationError([{ field: 'file', code: 'invalid', message: `Send the ${what} as multipart field "file"` }]);
    default:
      return badRequest(`The multipart body is malformed: ${code}`);
  }
}

/**
 * Parses a multipart body holding one file in the field `file`, kept in memory, within
 * MULTIPART_LIMITS: 413 PAYLOAD_TOO_LARGE beyond `limitBytes` (or a large field), 400 for
 * too many parts or a malformed body, 422 when the file is missing or under another name.
 */
export function singleFileUpload(limitBytes: number, what: string): RequestHandler {
  const upload = multer({ storage: multer.memoryStorage(), limits: { ...MULTIPART_LIMITS, fileSize: limitBytes } }).single('file');
  return (req, res, next) => {
    upload(req, res, (err: unknown) => {
      if (err instanceof MulterError) {
        next(limitError(err.code, what, limitBytes));
      } else if (err) {
        next(badRequest(`The multipart body is malformed: ${(err as Error).message}`));
      } else if (!req.file) {
        next(validationError([{ field: 'file', code: 'required', message: `Send the ${what} as multipart field "file"` }]));
      } else {
        next();
      }
    });
  };
}
