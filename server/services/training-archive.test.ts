import { zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { checkTrainingArchive } from './training-archive.ts';

const CENTRAL_SIGNATURE = 0x02014b50;
const EOCD_SIGNATURE = 0x06054b50;

/** Four entries, the first of them `first`: the checks read the directory, then unpack in its order. */
function archive(first: Zippable[string]): Uint8Array {
  const filler = new TextEncoder().encode('filler');
  return zipSync({ '1.jpg': first, '2.jpg': filler, '3.jpg': filler, '4.jpg': filler });
}

/** Offsets of the first entry's local header and central directory record. */
function firstEntry(zip: Uint8Array) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let central = 0;
  while (view.getUint32(central, true) !== CENTRAL_SIGNATURE) central++;
  return { view, local: view.getUint32(central + 42, true), central };
}

const refusal = (zip: Uint8Array) =>
  checkTrainingArchive(zip).then(
    () => 'accepted',
    (err: Error & { status?: number }) => `${err.status} ${err.message}`,
  );

describe('the training archive, unpacked only as the checked directory says', () => {
  it('refuses an entry whose stream inflates past the size it declares, without inflating the rest', async () => {
    // 8 MB of zeros deflate to a few KB; declared as 1,000 bytes (under the ratio check's floor) it is a small
    // file on paper and a large amount of work when the whole stream is decoded.
    const zip = archive([new Uint8Array(8 * 1024 * 1024), { level: 9 }]);
    const { view, local, central } = firstEntry(zip);
    view.setUint32(local + 22, 1000, true);
    view.setUint32(central + 24, 1000, true);
    expect(await refusal(zip)).toBe('400 The training archive is damaged.');
  });

  it('refuses a ZIP64 archive, whose locator would lead another reader to another directory', async () => {
    const zip = archive(new TextEncoder().encode('photo'));
    const view = new DataView(zip.buffer);
    let eocd = zip.length - 22;
    while (view.getUint32(eocd, true) !== EOCD_SIGNATURE) eocd--;
    const locator = new Uint8Array(20);
    new DataView(locator.buffer).setUint32(0, 0x07064b50, true);
    const withLocator = new Uint8Array([...zip.subarray(0, eocd), ...locator, ...zip.subarray(eocd)]);
    expect(await refusal(withLocator)).toBe('400 The training archive is too large (ZIP64 archives are not accepted).');
  });

  it('names a compression method it cannot read, and refuses an entry that runs past the archive', async () => {
    const zip = archive([new TextEncoder().encode('photo'.repeat(100)), { level: 6 }]);
    const { view, central } = firstEntry(zip);
    view.setUint16(central + 10, 12, true);
    expect(await refusal(zip)).toBe('400 1.jpg is compressed in a way that is not supported; use a plain ZIP file.');

    const truncated = archive([new TextEncoder().encode('photo'.repeat(100)), { level: 6 }]);
    const first = firstEntry(truncated);
    first.view.setUint32(first.central + 20, truncated.length, true);
    expect(await refusal(truncated)).toBe('400 The training archive is damaged.');
  });
});
