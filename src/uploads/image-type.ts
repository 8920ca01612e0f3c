/** An image format Herald accepts for template bodies. */
export interface ImageType {
  extension: 'png' | 'jpg' | 'gif' | 'webp';
  contentType: string;
}

/** Whether `content` holds `expected` (bytes, or ASCII text) at `offset`. */
function startsWith(content: Buffer, expected: number[] | string, offset = 0): boolean {
  const bytes = typeof expected === 'string' ? Buffer.from(expected, 'ascii') : Buffer.from(expected);
  return content.subarray(offset, offset + bytes.length).equals(bytes);
}

/** The format of an image judged by its first bytes (PNG, JPEG, GIF, WebP); undefined for anything else. */
export function detectImageType(content: Buffer): ImageType | undefined {
  if (startsWith(content, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { extension: 'png', contentType: 'image/png' };
  if (startsWith(content, [0xff, 0xd8, 0xff])) return { extension: 'jpg', contentType: 'image/jpeg' };
  if (startsWith(content, 'GIF87a') || startsWith(content, 'GIF89a')) return { extension: 'gif', contentType: 'image/gif' };
  if (startsWith(content, 'RIFF') && startsWith(content, 'WEBP', 8)) return { extension: 'webp', contentType: 'image/webp' };
  return undefined;
}
