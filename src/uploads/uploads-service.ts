import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';
import { validationError } from '../http/errors';
import { detectImageType } from './image-type';

/** The largest image an upload takes: 5 MiB. */
export const IMAGE_LIMIT_BYTES = 5 * 1024 * 1024;

/**
 * Images for template bodies, kept as `<UPLOADS_DIR>/<projectId>/<uuid>.<ext>` and served
 * publicly under `/uploads/` (emails link to them, so they need no key).
 */
export class UploadsService {
  constructor(private readonly config: Pick<Config, 'uploadsDir' | 'publicUrl'>) {}

  /** Where the stored files live. */
  get directory(): string {
    return this.config.uploadsDir;
  }

  /** Stores an image of the project and returns its public URL; 422 when the content is not PNG, JPEG, GIF or WebP. */
  async storeImage(projectId: string, content: Buffer): Promise<{ url: string }> {
    const type = detectImageType(content);
    if (!type) {
      throw validationError([{ field: 'file', code: 'unsupported_type', message: 'The file must be a PNG, JPEG, GIF or WebP image' }]);
    }
    const name = `${randomUUID()}.${type.extension}`;
    const folder = path.join(this.config.uploadsDir, projectId);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, name), content, { flag: 'wx' });
    return { url: `${this.config.publicUrl}/uploads/${projectId}/${name}` };
  }
}
