import { describe, expect, it } from 'vitest';
import { megapixelPhoto } from '../../tests/helpers/photos.ts';
import { decodeRgb } from './analyse-image.ts';
import { loadHuman } from './human-model.ts';
import { classifierInput } from './nsfw-model.ts';

describe('the NSFW classifier’s input', () => {
  it('is nsfwjs’s own preprocessing (0..1, bilinear to 224 × 224 with aligned corners), computed without TensorFlow', async () => {
    const img = await decodeRgb(await megapixelPhoto());
    // What nsfwjs computes, with the same TensorFlow the worker runs.
    const { tf } = await loadHuman();
    const input = tf.tensor(img.data, [1, img.height, img.width, 3], 'int32');
    const expected = tf.tidy(() => tf.image.resizeBilinear(tf.div(tf.cast(input, 'float32'), 255), [224, 224], true));
    const want = await expected.data();
    input.dispose();
    expected.dispose();

    const got = classifierInput(img);
    expect(got.length).toBe(want.length);
    let worst = 0;
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
    expect(worst).toBeLessThan(1e-4);
  }, 60_000);
});
