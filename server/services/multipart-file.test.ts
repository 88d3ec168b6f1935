import { describe, expect, it } from 'vitest';
import { openMultipartFile, readMultipartFile, type FileTypeRule } from './multipart-file.ts';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const rules: FileTypeRule<'image'>[] = [
  { kind: 'image', contentType: 'image/png', extension: 'png', maxBytes: 1000, matches: (h) => PNG.every((b, i) => h[i] === b) },
];

/** A body delivered in chunks of `size` bytes, to cross every boundary at every offset. */
function chunked(bytes: Buffer, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + size)));
      at += size;
    },
  });
}

function body(file: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from('--b0undary\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n'),
    Buffer.from('--b0undary\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'),
    file,
    Buffer.from('\r\n--b0undary--\r\n'),
  ]);
}

describe('readMultipartFile', () => {
  const file = Buffer.concat([Buffer.from(PNG), Buffer.from('\r\n--b0und'), Buffer.alloc(300, 1)]);

  it.each([1, 7, 64, 4096])('reads the file field exactly, in %i-byte chunks, after another field', async (size) => {
    const got = await readMultipartFile(chunked(body(file), size), 'multipart/form-data; boundary=b0undary', 'file', rules, 'bad type');
    expect(got.bytes).toEqual(file);
    expect(got.fileName).toBe('a.png');
    expect(got.rule.contentType).toBe('image/png');
  });

  it.each([10, 200])('answers 400 upload_interrupted when the body breaks off after %i bytes (the client went away)', async (cut) => {
    const whole = body(file);
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(whole.subarray(0, cut)));
        controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      },
    });
    await expect(readMultipartFile(broken, 'multipart/form-data; boundary=b0undary', 'file', rules, 'bad type')).rejects.toMatchObject({
      status: 400,
      code: 'upload_interrupted',
    });
  });

  it('stops at the limit without reading the rest of the body', async () => {
    let pulled = 0;
    const big = Buffer.concat([Buffer.from(PNG), Buffer.alloc(100_000)]);
    const source = chunked(body(big), 100);
    const counting = source.pipeThrough(
      new TransformStream({
        transform: (c, ctl) => {
          pulled += c.length;
          ctl.enqueue(c);
        },
      }),
    );
    await expect(readMultipartFile(counting, 'multipart/form-data; boundary=b0undary', 'file', rules, 'bad type')).rejects.toMatchObject({
      status: 413,
    });
    expect(pulled).toBeLessThan(2000);
  });

  it('refuses a file whose bytes match no allowed type', async () => {
    await expect(
      readMultipartFile(
        chunked(body(Buffer.from('plain text pretending')), 16),
        'multipart/form-data; boundary=b0undary',
        'file',
        rules,
        'bad type',
      ),
    ).rejects.toMatchObject({ status: 400, message: 'bad type' });
  });

  it('hands the file on only as fast as the consumer reads it', async () => {
    let pulled = 0;
    const big = Buffer.concat([Buffer.from(PNG), Buffer.alloc(900_000)]);
    const roomy = [{ ...rules[0], maxBytes: 2_000_000 }];
    const source = chunked(body(big), 4096).pipeThrough(
      new TransformStream({
        transform: (c, ctl) => {
          pulled += c.length;
          ctl.enqueue(c);
        },
      }),
    );
    const file = await openMultipartFile(source, 'multipart/form-data; boundary=b0undary', 'file', roomy, 'bad type');
    expect(file.rule.contentType).toBe('image/png');
    // Nobody has read the stream yet: the body is not pulled far past the type's signature.
    await new Promise((r) => setTimeout(r, 20));
    expect(pulled).toBeLessThan(300_000);
    file.stream.destroy();
  });

  it('waits for a slow consumer many times without piling up listeners on the stream', async () => {
    const big = Buffer.concat([Buffer.from(PNG), Buffer.alloc(2_000_000, 7)]);
    const roomy = [{ ...rules[0], maxBytes: 3_000_000 }];
    const file = await openMultipartFile(chunked(body(big), 16_384), 'multipart/form-data; boundary=b0undary', 'file', roomy, 'bad type');
    const counts = new Set<number>();
    let read = 0;
    for await (const chunk of file.stream) {
      read += (chunk as Buffer).length;
      counts.add(file.stream.listenerCount('close') + file.stream.listenerCount('error') + file.stream.listenerCount('drain'));
      await new Promise((r) => setImmediate(r));
    }
    expect(read).toBe(big.length);
    expect(Math.max(...counts)).toBeLessThan(8);
  });

  it('refuses a body that is not multipart', async () => {
    await expect(readMultipartFile(chunked(Buffer.from('{}'), 2), 'application/json', 'file', rules, 'bad type')).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('readMultipartFile on hostile bodies', () => {
  it('does not pile up a body that never shows its boundary', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 4096;
        controller.enqueue(new Uint8Array(4096).fill(65));
      },
    });
    await expect(readMultipartFile(endless, 'multipart/form-data; boundary=b0undary', 'file', rules, 'bad type')).rejects.toMatchObject({
      status: 413,
    });
    expect(pulled).toBeLessThan(1000 + 64 * 1024 + 8192);
  });
});
