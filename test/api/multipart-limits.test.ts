import { MULTIPART_LIMITS } from '../../src/http/file-upload';
import { signupWithProject, startApi, type TestApi } from '../support/api';

/** The multipart routes and a small file each accepts as its `file`. */
const ROUTES = [
  { path: '/uploads/image', file: () => new Blob([Buffer.from('GIF89a')], { type: 'image/gif' }) },
  { path: '/contacts/import', file: () => new Blob(['email\nada@example.com\n'], { type: 'text/csv' }) },
];

describe('multipart limits on every upload route', () => {
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    api = await startApi();
    key = (await signupWithProject(api)).project.secretKey;
  });
  afterAll(() => api.close());

  /** POSTs a form holding the route's file, then `extra` added to it. */
  async function post(route: (typeof ROUTES)[number], extra: (form: FormData) => unknown) {
    const form = new FormData();
    form.append('file', route.file(), 'upload');
    extra(form);
    const response = await fetch(`${api.url}${route.path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    return { status: response.status, body: (await response.json()) as any };
  }

  it.each([
    {
      what: 'more fields than allowed',
      extra: (form: FormData) => Array.from({ length: MULTIPART_LIMITS.fields + 1 }, (_, i) => form.append(`field${i}`, 'x')),
      error: { status: 400, code: 'BAD_REQUEST', message: 'A multipart body may hold the file and at most 10 other fields' },
    },
    {
      what: 'thousands of empty parts',
      extra: (form: FormData) => Array.from({ length: 5000 }, () => form.append('p', '')),
      error: { status: 400, code: 'BAD_REQUEST', message: 'A multipart body may hold the file and at most 10 other fields' },
    },
    {
      what: 'a field larger than allowed',
      extra: (form: FormData) => form.append('note', 'x'.repeat(MULTIPART_LIMITS.fieldSize + 1)),
      error: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'A form field exceeds the limit of 16384 bytes' },
    },
    {
      what: 'a second file',
      extra: (form: FormData) => form.append('file', new Blob(['again']), 'again'),
      error: { status: 400, code: 'BAD_REQUEST', message: 'Send one file only, as multipart field "file"' },
    },
  ])('refuses $what on every upload route with $error.status, naming the limit', async ({ extra, error }) => {
    for (const route of ROUTES) {
      const answer = await post(route, extra);
      expect([route.path, answer.status, answer.body.error]).toEqual([
        route.path,
        error.status,
        expect.objectContaining({ code: error.code, message: error.message, statusCode: error.status }),
      ]);
    }
  });

  it('refuses a malformed multipart body with 400, and still takes a file with a few small fields', async () => {
    const malformed = await fetch(`${api.url}/uploads/image`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.gif"\r\n\r\nGIF89a',
    });
    const accepted = await post(ROUTES[0], (form) => form.append('alt', 'logo'));

    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe('BAD_REQUEST');
    expect(accepted.status).toBe(201);
  });
});
