import { imageTypeOf } from '../src/attachments/image-type';

const hex = (h: string) => Buffer.from(h, 'hex');

describe('image types judged by the bytes', () => {
  it.each([
    ['PNG', hex('89504e470d0a1a0a0000000d49484452'), 'image/png', 'png'],
    ['JPEG', hex('ffd8ffe000104a464946000101'), 'image/jpeg', 'jpg'],
    ['GIF87a', Buffer.from('GIF87a\x01\x00\x01\x00', 'latin1'), 'image/gif', 'gif'],
    ['GIF89a', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), 'image/gif', 'gif'],
    ['WebP', Buffer.concat([Buffer.from('RIFF'), hex('1a000000'), Buffer.from('WEBPVP8L')]), 'image/webp', 'webp'],
  ])('%s is an image', (_n, bytes, type, ext) => {
    expect(imageTypeOf(bytes)).toEqual({ type, ext });
  });

  it.each([
    ['a Windows executable', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62)])],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    ['SVG behind an XML declaration', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['a PDF', Buffer.from('%PDF-1.7\n')],
    ['a WAV (RIFF but not WebP)', Buffer.concat([Buffer.from('RIFF'), hex('24000000'), Buffer.from('WAVEfmt ')])],
    ['a BMP', Buffer.from('BM\x36\x00\x00\x00\x00\x00', 'latin1')],
    ['text', Buffer.from('hello')],
    ['nothing', Buffer.alloc(0)],
  ])('%s is not', (_n, bytes) => {
    expect(imageTypeOf(bytes)).toBeNull();
  });
});
