import { describe, expect, it } from 'vitest';
import { attachmentDisposition, fileNameOfDisposition } from './media.ts';

describe('attachmentDisposition and fileNameOfDisposition', () => {
  it('keeps an ASCII name as it is', () => {
    expect(attachmentDisposition('dana-travel.zip')).toBe('attachment; filename="dana-travel.zip"');
    expect(fileNameOfDisposition('attachment; filename="dana-travel.zip"')).toBe('dana-travel.zip');
    expect(fileNameOfDisposition('attachment; filename=likeness-1.jpeg')).toBe('likeness-1.jpeg');
  });

  it('gives a name in another script as filename* beside an ASCII filename a header can carry', () => {
    for (const name of ['мария-linkedin-profile.zip', '李娜-travel.zip', 'renée "o\'neil" (2).zip']) {
      const header = attachmentDisposition(name);
      // Bytes 0–255 only, or the server cannot send it.
      expect(() => new Headers({ 'content-disposition': header })).not.toThrow();
      expect(fileNameOfDisposition(header)).toBe(name);
    }
    expect(attachmentDisposition('мария-linkedin-profile.zip')).toMatch(
      /^attachment; filename="linkedin-profile.zip"; filename\*=UTF-8''%D0%BC/,
    );
    expect(attachmentDisposition('李娜.zip')).toMatch(/^attachment; filename="download.zip"; /);
    expect(attachmentDisposition('李娜')).toMatch(/^attachment; filename="download"; /);
  });

  it('reads no name from a header without one', () => {
    expect(fileNameOfDisposition(null)).toBeNull();
    expect(fileNameOfDisposition('attachment')).toBeNull();
  });
});
