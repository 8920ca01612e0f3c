import { commonErrors, described, errorResponse, jsonResponse, MULTIPART_LIMITS_NOTE, noAuth, object, pathParam, rateLimitHeaders, schemaRef, uuid } from '../builders';
import type { PathModule } from '../types';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** `POST /uploads/image` and the public URLs it hands out. */
export const pathModule: PathModule = {
  tag: {
    name: 'Uploads',
    description: 'Images for template and campaign bodies, served from public URLs that emails can link to.',
  },
  schemas: {
    UploadedImage: object({ url: described({ type: 'string', format: 'uri' }, 'The public URL of the image, under `PUBLIC_URL`.') }),
  },
  paths: {
    '/uploads/image': {
      post: {
        operationId: 'uploadImage',
        summary: 'Upload an image',
        description:
          'Multipart field `file`: a PNG, JPEG, GIF or WebP image, judged by its content (not its name or declared ' +
          'type), at most 5 MiB (5,242,880 bytes). Secret key. ' +
          MULTIPART_LIMITS_NOTE,
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: object({ file: described({ type: 'string', contentMediaType: 'application/octet-stream' }, 'The image.') }),
            },
          },
        },
        responses: {
          '201': jsonResponse('Stored.', schemaRef('UploadedImage'), {
            headers: rateLimitHeaders,
            example: { url: 'https://herald.example.com/uploads/5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13/9c4e1f70-3b2a-4d8e-b6f1-7a0c5d2e8f44.png' },
          }),
          '413': errorResponse(413, 'PAYLOAD_TOO_LARGE', 'The image is larger than 5 MiB', {
            message: 'The image exceeds the limit of 5242880 bytes',
          }),
          '422': jsonResponse(
            'No `file` field, or its content is not a PNG, JPEG, GIF or WebP image (`VALIDATION_ERROR`).',
            schemaRef('ErrorResponse'),
          ),
          ...commonErrors(400, 401, 403, 429),
        },
      },
    },
    '/uploads/{projectId}/{file}': {
      parameters: [pathParam('projectId', 'The project that uploaded it.', uuid), pathParam('file', 'The stored name.', { type: 'string' })],
      get: {
        operationId: 'getUploadedImage',
        summary: 'Get an uploaded image',
        description: 'Public. Served with its image type and `Cache-Control: public, max-age=31536000, immutable` (a stored file never changes).',
        security: noAuth,
        responses: {
          '200': {
            description: 'The image.',
            content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
          },
          ...commonErrors(404),
        },
      },
    },
  },
};
