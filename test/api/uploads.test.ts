import { existsSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { signupWithProject, startApi, type TestApi } from '../support/api';

/** A PNG chunk: length, type, data and CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real 2x2 RGB PNG. */
function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('POST /uploads/image', () => {
  let api: TestApi;
  let secretKey: string;
  let publicKey: string;
  let projectId: string;

  beforeAll(async () => {
    api = await startApi();
    const { project } = await signupWithProject(api);
    ({ secretKey, publicKey, id: projectId } = project);
  });
  afterAll(() => api.close());

  async function upload(content: Buffer, filename: string, key = secretKey, type = 'application/octet-stream') {
    const body = new FormData();
    body.append('file', new Blob([content], { type }), filename);
    const response = await fetch(`${api.url}/uploads/image`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
    return { status: response.status, body: (await response.json()) as any };
  }

  it('stores a PNG and serves it back byte for byte, publicly, as image/png with long caching', async () => {
    const image = png();
    const answer = await upload(image, 'logo.bin');
    expect(answer.status).toBe(201);
    const url: string = answer.body.url;
    expect(url).toMatch(new RegExp(`^${api.config.publicUrl}/uploads/${projectId}/[0-9a-f-]{36}\\.png$`));
    const { pathname } = new URL(url);
    expect(existsSync(path.join(api.config.uploadsDir, projectId, path.basename(pathname)))).toBe(true);

    const served = await fetch(`${api.url}${pathname}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
  });

  it('refuses a file that is not an image, whatever it claims, with 422', async () => {
    const answer = await upload(Buffer.from('just some text'), 'picture.png', secretKey, 'image/png');
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'file' })] });
  });

  it('refuses an image over 5 MiB with 413', async () => {
    const large = Buffer.concat([png(), Buffer.alloc(5 * 1024 * 1024)]);
    const answer = await upload(large, 'large.png');
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('asks for the file with 422 when the field is missing', async () => {
    const body = new FormData();
    body.append('other', 'x');
    const response = await fetch(`${api.url}/uploads/image`, { method: 'POST', headers: { authorization: `Bearer ${secretKey}` }, body });
    expect(response.status).toBe(422);
  });

  it('needs the secret key', async () => {
    const answer = await upload(png(), 'logo.png', publicKey);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('INVALID_API_KEY');
  });

  it('answers 404 for a file that does not exist', async () => {
    expect((await fetch(`${api.url}/uploads/${projectId}/00000000-0000-0000-0000-000000000000.png`)).status).toBe(404);
  });
});
