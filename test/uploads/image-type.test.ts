import { detectImageType } from '../../src/uploads/image-type';

const bytes = (...parts: (number[] | string)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'ascii') : Buffer.from(part))));

describe('detectImageType', () => {
  it('recognises PNG, JPEG, GIF and WebP by their first bytes', () => {
    expect(detectImageType(bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toEqual({ extension: 'png', contentType: 'image/png' });
    expect(detectImageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toEqual({ extension: 'jpg', contentType: 'image/jpeg' });
    expect(detectImageType(bytes('GIF89a', [1, 0]))).toEqual({ extension: 'gif', contentType: 'image/gif' });
    expect(detectImageType(bytes('GIF87a'))).toEqual({ extension: 'gif', contentType: 'image/gif' });
    expect(detectImageType(bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '))).toEqual({ extension: 'webp', contentType: 'image/webp' });
  });

  it('refuses anything else, whatever it is named', () => {
    expect(detectImageType(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(detectImageType(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).toBeUndefined();
    expect(detectImageType(bytes('hello'))).toBeUndefined();
    expect(detectImageType(Buffer.alloc(0))).toBeUndefined();
  });
});
