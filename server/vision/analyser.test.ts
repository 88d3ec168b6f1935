import { afterAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { samplePhoto } from '../../tests/helpers/photos.ts';
import { createVisionAnalyser, VisionError } from './analyser.ts';
import { detailedCaption, fastCaption, framingOf } from './describe.ts';
import { NO_FACE, photoOf } from '../../bench/photo-eval/set.ts';

// Real models on real photos (cut from the samples inside @vladmandic/human): one analyser for the file.
const analyser = createVisionAnalyser({ timeoutMs: 30_000 });
afterAll(() => analyser.close());

describe('vision analyser on sample photos', () => {
  it('finds the smiling young woman in a close-up and says so', async () => {
    const a = await analyser.analyse(await samplePhoto('smilingWoman'));
    expect(a.faces).toHaveLength(1);
    expect(a.faces[0]).toMatchObject({ gender: 'female', emotion: { name: 'happy' } });
    expect(framingOf(a)).toBe('close-up');
    expect(fastCaption(a)).toMatch(/^a close-up portrait photo of a smiling woman in her (twenties|thirties)/);
    const detailed = detailedCaption(a);
    expect(detailed.split('. ').length).toBeGreaterThanOrEqual(4);
    expect(detailed).toContain('close-up');
    expect(detailed).toMatch(/background/i);
    expect(detailed).toMatch(/light is (warm|cool|neutral)/);
  });

  it('tells a man from a woman', async () => {
    const a = await analyser.analyse(await samplePhoto('man'));
    expect(a.faces[0]?.gender).toBe('male');
    expect(fastCaption(a)).toMatch(/close-up portrait photo of a (\w+ )?man in his/);
  });

  it('frames a standing figure as full-body', async () => {
    const a = await analyser.analyse(await samplePhoto('fullBody', 480));
    expect(framingOf(a)).toBe('full-body');
    expect(fastCaption(a)).toMatch(/^a full-body photo of /);
    expect(detailedCaption(a)).toContain('from head to toe');
  });

  it('frames a person at a desk from the waist up and names their clothing colour', async () => {
    const a = await analyser.analyse(await samplePhoto('webcamMan'));
    expect(framingOf(a)).toBe('half-body');
    expect(a.clothing?.length).toBeGreaterThan(0);
    expect(fastCaption(a)).toMatch(/^a half-body portrait photo of .*, wearing an? [a-z ]+ top/);
  });

  it('describes an image without people as a scene, from its colours and light', async () => {
    const sunset = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 240, g: 140, b: 40 } } })
      .jpeg()
      .toBuffer();
    const a = await analyser.analyse(sunset);
    expect(a.faces).toHaveLength(0);
    expect(framingOf(a)).toBe('scene');
    expect(a.stats.palette[0].name).toBe('orange');
    expect(fastCaption(a)).toMatch(/^a photo, plain orange background, warm/);
    expect(fastCaption(a)).not.toMatch(/\b(woman|man|person)\b/);
  });

  it('refuses bytes that are not an image as a bad image, and keeps working', async () => {
    await expect(analyser.analyse(Buffer.from('this is not an image at all'))).rejects.toMatchObject({ kind: 'bad-image' });
    const a = await analyser.analyse(await samplePhoto('smilingWoman'));
    expect(a.faces).toHaveLength(1);
  });

  it('keeps the event loop free while it analyses', async () => {
    const photo = await samplePhoto('fullBody', 1000);
    // The share of the time this thread's loop was busy: near 1 if the models ran here, low when they run in
    // the worker. Unlike a timer's worst gap, it does not grow when a loaded machine is slow to schedule us.
    const before = performance.eventLoopUtilization();
    await Promise.all([analyser.analyse(photo), analyser.analyse(photo)]);
    const { utilization } = performance.eventLoopUtilization(before);
    expect(utilization).toBeLessThan(0.5);
  });

  it('gives up after its timeout and recovers with a fresh worker', async () => {
    const own = createVisionAnalyser();
    try {
      const photo = await samplePhoto('man');
      const err = await own.analyse(photo, { timeoutMs: 5 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VisionError);
      expect(err).toMatchObject({ kind: 'timeout' });
      const a = await own.analyse(photo);
      expect(a.faces[0]?.gender).toBe('male');
    } finally {
      await own.close();
    }
  });
});

describe('captions beside photo checks', () => {
  it('see no person in a photo of dice after a photo check of it (the check’s face options do not carry over)', async () => {
    const dice = NO_FACE.find((c) => c.name === 'three dice')!;
    const photo = await photoOf(dice);
    await analyser.check(photo);
    const a = await analyser.analyse(photo);
    expect(a.faces).toHaveLength(0);
    expect(fastCaption(a)).not.toMatch(/\b(woman|man|person)\b/);
  });

  it('run in a process of their own, which ends when idle and gives its memory back, while the photo checks’ worker stays', async () => {
    const own = createVisionAnalyser({ timeoutMs: 60_000, captionIdleMs: 300 });
    try {
      const photo = await samplePhoto('man');
      await own.check(photo);
      expect(own.running()).toEqual({ photoChecks: true, captions: false });
      await own.analyse(photo);
      expect(own.running()).toEqual({ photoChecks: true, captions: true });
      await expect.poll(() => own.running().captions, { timeout: 5_000 }).toBe(false);
      expect(own.running().photoChecks).toBe(true);
      // The next caption starts a fresh worker and answers as before.
      expect((await own.analyse(photo)).faces[0]?.gender).toBe('male');
    } finally {
      await own.close();
    }
    // Three model loads (the photo checks' worker, the captions' process twice): slow on a busy machine.
  }, 180_000);
});
