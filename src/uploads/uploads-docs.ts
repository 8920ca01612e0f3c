import { commonErrors, described, errorResponse, jsonResponse, MULTIPART_LIMITS_NOTE, object, pathParam, schemaRef, uuid } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { UploadedImage } from './uploads-dtos';

export const tag: Tag = {
  name: 'Uploads',
  description: 'Images for template and campaign bodies, served from public URLs that emails can link to.',
};

export const uploadImage: EndpointDoc = {
  operationId: 'uploadImage',
  summary: 'Upload an image',
  description:
    'Multipart field `file`: a PNG, JPEG, GIF or WebP image, judged by its content (not its name or declared ' +
    'type), at most 5 MiB (5,242,880 bytes). Secret key. ' +
    MULTIPART_LIMITS_NOTE,
  requestBody: {
    contentType: 'multipart/form-data',
    schema: object({ file: described({ type: 'string', contentMediaType: 'application/octet-stream' }, 'The image.') }),
  },
  response: {
    status: 201,
    description: 'Stored.',
    shape: UploadedImage,
    example: { url: 'https://herald.example.com/uploads/5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13/9c4e1f70-3b2a-4d8e-b6f1-7a0c5d2e8f44.png' },
  },
  errors: {
    ...commonErrors(400),
    '413': errorResponse(413, 'PAYLOAD_TOO_LARGE', 'The image is larger than 5 MiB', { message: 'The image exceeds the limit of 5242880 bytes' }),
    '422': jsonResponse('No `file` field, or its content is not a PNG, JPEG, GIF or WebP image (`VALIDATION_ERROR`).', schemaRef('ErrorResponse')),
  },
};

export const getUploadedImage: EndpointDoc = {
  operationId: 'getUploadedImage',
  summary: 'Get an uploaded image',
  description: 'Public. Served with its image type and `Cache-Control: public, max-age=31536000, immutable` (a stored file never changes).',
  parameters: [pathParam('projectId', 'The project that uploaded it.', uuid), pathParam('file', 'The stored name.', { type: 'string' })],
  response: {
    description: 'The image: PNG, JPEG, GIF or WebP, as its content type says.',
    shape: { type: 'string', contentMediaType: 'image/*' },
    contentType: 'image/*',
  },
};
