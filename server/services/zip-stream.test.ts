import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { safeFileName, zipStream, type ZipEntry } from './zip-stream.ts';

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return new Uint8Array(Buffer.concat(parts));
}

async function* chunks(count: number, size: number, fill = 7): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) yield new Uint8Array(size).fill((fill + i) % 256);
}

describe('zipStream', () => {
  it('writes bytes, text and streamed entries that unzip to what went in; a missing source is left out', async () => {
    const entries: ZipEntry[] = [
      { name: 'images/a.jpeg', content: new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]) },
      { name: 'gone.jpeg', content: async () => null },
      { name: 'streamed.bin', content: async () => chunks(3, 1000) },
      { name: 'README.txt', content: 'hello, ünïcode', compress: true, modified: new Date('2026-11-25T10:00:00Z') },
    ];
    const files = unzipSync(await collect(zipStream(entries)));
    expect(Object.keys(files)).toEqual(['images/a.jpeg', 'streamed.bin', 'README.txt']);
    expect([...files['images/a.jpeg']]).toEqual([0xff, 0xd8, 0xff, 1, 2, 3]);
    expect(files['streamed.bin'].length).toBe(3000);
    expect(files['streamed.bin'][2999]).toBe(9);
    expect(strFromU8(files['README.txt'])).toBe('hello, ünïcode');
  });

  it('keeps memory flat: 256 MB pass through while memory in use stays under half of that', async () => {
    global.gc?.();
    const before = process.memoryUsage();
    let peak = 0;
    let total = 0;
    const stream = zipStream([{ name: 'big.bin', content: async () => chunks(256, 1024 * 1024) }]);
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const part = read.value;
      total += part.length;
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }
    expect(total).toBeGreaterThan(256 * 1024 * 1024);
    // Garbage waits for the collector, so the peak is not zero; an archive held whole would need all 256 MB at once.
    expect(peak).toBeLessThan(128 * 1024 * 1024);
  });

  it('stops reading its sources when the reader cancels', async () => {
    let produced = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        produced++;
        yield new Uint8Array(1024);
      }
    }
    const reader = zipStream([{ name: 'endless.bin', content: async () => endless() }]).getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    await reader.cancel();
    const after = produced;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(produced).toBe(after);
    expect(produced).toBeLessThan(10);
  });

  it('ends the stream with the error of a source that fails midway, and reports it', async () => {
    const seen: unknown[] = [];
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(10);
      throw new Error('storage went away');
    }
    await expect(collect(zipStream([{ name: 'x.bin', content: async () => failing() }], (err) => seen.push(err)))).rejects.toThrow(
      'storage went away',
    );
    expect(seen).toHaveLength(1);
  });
});

describe('safeFileName', () => {
  it('keeps names that are safe in any ZIP tool', () => {
    expect(safeFileName('../etc/passwd')).toBe('_etc_passwd');
    expect(safeFileName('a:b*c?.jpeg')).toBe('a_b_c_.jpeg');
    expect(safeFileName('...')).toBe('file');
  });
});
