import { createHash } from 'node:crypto';
import sharp, { type OutputInfo, type OverlayOptions } from 'sharp';
import { parseBuiltinLora, type BuiltinLora } from './builtin-lora.ts';
import { mix, parseHex, readPrompt, saturate, shade, tintPalette, type Palette, type SceneReading } from './builtin-scene.ts';
import { ProviderError, type GenerateInput, type GenerateOutput, type ImageGenerator } from './index.ts';

/**
 * The built-in engine: paints a deterministic, photo-like scene from the prompt's words with SVG and
 * sharp, so the product works offline with no model. Every random choice comes from a generator
 * seeded by all inputs, so the same request always gives the same bytes.
 */
export interface BuiltinGeneratorDeps {
  /** Reads a LoRA artefact by its lora_file_url; null when there is none. */
  loadLora(path: string): Promise<Buffer | null>;
}

/** The SVG is painted at this long side and scaled up: soft shapes survive, and it keeps renders fast. */
const PAINT_LONG_SIDE = 512;

export function createBuiltinGenerator(deps: BuiltinGeneratorDeps): ImageGenerator {
  return {
    name: 'builtin',
    async generate(input, opts) {
      if (opts?.signal?.aborted) throw new ProviderError('The generation was cancelled', 'cancelled');
      const loras = await loadLoras(deps, input);
      const data = await renderImage(input, loras);
      if (opts?.signal?.aborted) throw new ProviderError('The generation was cancelled', 'cancelled');
      return {
        images: [
          {
            data,
            width: input.imageSize.width,
            height: input.imageSize.height,
            contentType: input.outputFormat === 'png' ? 'image/png' : 'image/jpeg',
            nsfw: false,
          },
        ],
        seed: input.seed,
      } satisfies GenerateOutput;
    },
  };
}

interface AppliedLora {
  lora: BuiltinLora;
  scale: number;
}

async function loadLoras(deps: BuiltinGeneratorDeps, input: GenerateInput): Promise<AppliedLora[]> {
  const applied: AppliedLora[] = [];
  for (const { path, scale } of input.loras) {
    const bytes = await deps.loadLora(path);
    if (!bytes) throw new ProviderError('The character model file could not be found', 'failed');
    const lora = parseBuiltinLora(bytes);
    if (!lora) throw new ProviderError('This character model was not made by the built-in engine', 'rejected');
    applied.push({ lora, scale });
  }
  return applied;
}

/** Renders the image for a request. Exported for the benchmark. */
export async function renderImage(input: GenerateInput, loras: AppliedLora[] = []): Promise<Buffer> {
  const { width, height } = input.imageSize;
  const rng = seededRandom(input, loras);
  const reading = readPrompt(input.prompt);
  let palette = reading.palette;
  for (const { lora, scale } of loras) palette = tintPalette(palette, lora.palette, 0.35 * Math.min(1.5, scale));
  palette = shiftForSeed(palette, rng);
  // Guidance is the engine's "contrast with the prompt": more guidance, richer colour.
  palette = saturate(palette, 0.8 + Math.min(20, Math.max(1, input.guidanceScale)) * 0.06);
  const hasPerson = reading.person || loras.length > 0 || reading.kind === 'studio' || reading.kind === 'portrait';
  const figure = hasPerson ? figureBox(width, height, reading, rng) : null;
  const scene = composeScene(width, height, reading, palette, figure, loras.length > 0, rng);

  // Painted small and scaled up: SVG blur filters are slow, resampling is not. A scene behind a person
  // is painted smaller still, which gives the shallow depth of field of a portrait lens for free.
  const paintScale = PAINT_LONG_SIDE / Math.max(width, height);
  const pw = Math.max(1, Math.round(width * paintScale));
  const ph = Math.max(1, Math.round(height * paintScale));
  let painted: { data: Buffer; info: OutputInfo };
  if (figure && reading.kind !== 'studio') {
    // Rasterise before resizing: given an SVG, sharp would re-render the vectors sharp at the new size.
    const small = await sharp(Buffer.from(svgDocument(width, height, pw / BACKDROP_DOWNSCALE, ph / BACKDROP_DOWNSCALE, scene.defs, scene.backdrop)))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const backdrop = await sharp(small.data, { raw: small.info }).resize(pw, ph, { fit: 'fill', kernel: 'cubic' }).raw().toBuffer({ resolveWithObject: true });
    painted = await sharp(backdrop.data, { raw: backdrop.info })
      .composite([{ input: Buffer.from(svgDocument(width, height, pw, ph, scene.defs, scene.foreground)) }])
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } else {
    painted = await sharp(Buffer.from(svgDocument(width, height, pw, ph, scene.defs, scene.backdrop + scene.foreground)))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  }
  const full = await sharp(painted.data, { raw: painted.info })
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer();
  addGrain(full, input.numInferenceSteps, rng);

  const layers: OverlayOptions[] = [];
  const character = loras[0];
  if (character && figure) layers.push(await portraitLayer(character, figure, palette, width, height));
  layers.push(previewMark(width, height));
  const image = sharp(full, { raw: { width, height, channels: 3 } }).composite(layers);
  return input.outputFormat === 'png'
    ? image.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer()
    : image.jpeg({ quality: 88, chromaSubsampling: '4:2:0' }).toBuffer();
}

const BACKDROP_DOWNSCALE = 5;

function svgDocument(W: number, H: number, pw: number, ph: number, defs: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(1, Math.round(pw))}" height="${Math.max(1, Math.round(ph))}" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none"><defs>${defs}</defs>${body}</svg>`;
}

type Rng = () => number;

function seededRandom(input: GenerateInput, loras: AppliedLora[]): Rng {
  const key = JSON.stringify([
    input.prompt,
    input.seed,
    input.imageSize,
    input.numInferenceSteps,
    input.guidanceScale,
    input.outputFormat,
    loras.map((l) => [l.lora.referenceImage, l.lora.palette, l.scale]),
  ]);
  const digest = createHash('sha256').update(key).digest();
  let a = digest.readUInt32LE(0);
  // mulberry32: small, fast and good enough for composition choices.
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (rng: Rng, lo: number, hi: number) => lo + (hi - lo) * rng();

/** Another seed, another light: a gentle hue and brightness drift so seeds differ beyond layout. */
function shiftForSeed(p: Palette, rng: Rng): Palette {
  const warm = rng() < 0.5 ? '#ffb070' : '#6f8cff';
  const t = between(rng, 0.04, 0.16);
  return { ...p, skyTop: mix(p.skyTop, warm, t), skyBottom: mix(p.skyBottom, warm, t * 0.8), glow: mix(p.glow, warm, t * 0.5) };
}

interface FigureBox {
  cx: number;
  headCy: number;
  headRx: number;
  headRy: number;
  shoulderY: number;
  shoulderHalf: number;
  /** The side the key light comes from: -1 left, 1 right. */
  light: -1 | 1;
}

function figureBox(width: number, height: number, reading: SceneReading, rng: Rng): FigureBox {
  const close = reading.kind === 'studio' || reading.kind === 'portrait';
  const unit = Math.min(width, height);
  const headRy = unit * (close ? between(rng, 0.17, 0.2) : between(rng, 0.11, 0.14));
  const headRx = headRy * 0.78;
  const cx = width * (close ? between(rng, 0.38, 0.62) : rng() < 0.5 ? between(rng, 0.28, 0.38) : between(rng, 0.62, 0.72));
  const headCy = height - unit * (close ? 0.62 : 0.48) + headRy * 0.2;
  return { cx, headCy, headRx, headRy, shoulderY: headCy + headRy * 1.5, shoulderHalf: headRx * 2.35, light: rng() < 0.5 ? -1 : 1 };
}

interface Scene {
  defs: string;
  /** Sky and land: painted small, so soft. */
  backdrop: string;
  /** Light and subject: painted at full paint size over the backdrop. */
  foreground: string;
}

function composeScene(
  W: number,
  H: number,
  reading: SceneReading,
  p: Palette,
  figure: FigureBox | null,
  withCharacter: boolean,
  rng: Rng,
): Scene {
  const horizon = H * (reading.kind === 'studio' ? 0.78 : between(rng, 0.52, 0.66));
  const sun = { x: W * between(rng, 0.2, 0.8), y: horizon - H * between(rng, 0.06, 0.3) };
  const defs = [
    `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.skyTop}"/><stop offset="${(horizon / H).toFixed(3)}" stop-color="${p.skyBottom}"/><stop offset="1" stop-color="${shade(p.skyBottom, -0.25)}"/></linearGradient>`,
    `<radialGradient id="glow"><stop offset="0" stop-color="${p.glow}" stop-opacity="0.95"/><stop offset="0.25" stop-color="${p.glow}" stop-opacity="0.45"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="disc"><stop offset="0" stop-color="${shade(p.glow, 0.5)}"/><stop offset="0.7" stop-color="${shade(p.glow, 0.4)}"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="bokeh"><stop offset="0" stop-color="${p.accent}" stop-opacity="0.5"/><stop offset="0.82" stop-color="${p.accent}" stop-opacity="0.32"/><stop offset="0.9" stop-color="${shade(p.accent, 0.3)}" stop-opacity="0.4"/><stop offset="1" stop-color="${p.accent}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="ray" gradientUnits="userSpaceOnUse" cx="${sun.x}" cy="${sun.y}" r="${Math.hypot(W, H)}"><stop offset="0" stop-color="${p.glow}" stop-opacity="0.5"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="vignette" cx="0.5" cy="0.45" r="0.75"><stop offset="0.55" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.55"/></radialGradient>`,
  ].join('');
  const back: string[] = [`<rect width="${W}" height="${H}" fill="url(#sky)"/>`];
  if (reading.night) back.push(stars(W, horizon, rng));
  back.push(`<circle cx="${sun.x}" cy="${sun.y}" r="${W * 0.55}" fill="url(#glow)" opacity="${reading.night ? 0.35 : 0.8}"/>`);
  if (reading.kind !== 'studio') {
    back.push(`<circle cx="${sun.x}" cy="${sun.y}" r="${W * (reading.night ? 0.05 : 0.045)}" fill="url(#disc)"/>`);
  }
  switch (reading.kind) {
    case 'beach':
      back.push(beach(W, H, horizon, sun.x, p, rng));
      break;
    case 'city':
      back.push(city(W, H, horizon, p, reading.night || reading.golden, rng));
      break;
    case 'forest':
      back.push(ridges(W, H, horizon, p, rng, 2), trees(W, H, horizon, p, rng));
      break;
    case 'mountain':
      back.push(ridges(W, H, horizon, p, rng, 3, true));
      break;
    case 'desert':
      back.push(dunes(W, H, horizon, p, rng));
      break;
    case 'studio':
      back.push(studio(W, H, horizon, p));
      break;
    default:
      back.push(ridges(W, H, horizon, p, rng, 3));
  }
  const front: string[] = [];
  front.push(bokeh(W, H, figure ? 14 : reading.night || reading.kind === 'city' ? 10 : 5, rng));
  if (!reading.night && reading.kind !== 'studio') front.push(rays(W, H, sun, rng));
  // A character's photo takes the subject's place (see portraitLayer); otherwise a backlit silhouette.
  if (figure && !withCharacter) front.push(person(figure, p));
  front.push(`<rect width="${W}" height="${H}" fill="url(#vignette)"/>`);
  return { defs, backdrop: back.join(''), foreground: front.join('') };
}

/** Stars as three merged paths (one per brightness): one element each keeps librsvg fast. */
function stars(W: number, horizon: number, rng: Rng): string {
  const paths = ['', '', ''];
  for (let i = 0; i < 140; i++) {
    const r = ((rng() < 0.9 ? between(rng, 0.6, 1.4) : between(rng, 1.6, 2.6)) * W) / 1024;
    const x = rng() * W;
    const y = rng() * horizon * 0.9;
    paths[Math.floor(rng() * 3)] += `M${(x - r).toFixed(1)} ${y.toFixed(1)}a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(2 * r).toFixed(2)} 0a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(-2 * r).toFixed(2)} 0`;
  }
  return paths.map((d, i) => (d ? `<path d="${d}" fill="#fff" opacity="${[0.4, 0.65, 0.95][i]}"/>` : '')).join('');
}

/** A ridge line as a closed path: layered sines with random phases look like hills or peaks. */
function ridgePath(W: number, H: number, base: number, amp: number, rng: Rng, sharpness: number): string {
  const phases = [rng(), rng(), rng()].map((v) => v * Math.PI * 2);
  const freqs = [between(rng, 1, 2), between(rng, 2.5, 4.5), between(rng, 6, 10)];
  const steps = 48;
  let d = `M0 ${H}`;
  for (let i = 0; i <= steps; i++) {
    const x = (i / steps) * W;
    const t = i / steps;
    let y = 0;
    freqs.forEach((f, k) => {
      const s = Math.sin(t * f * Math.PI * 2 + phases[k]!);
      y += (sharpness > 0 && k === 0 ? 1 - Math.abs(s) * 2 : s) / (k + 1);
    });
    d += ` L${x.toFixed(1)} ${(base - y * amp).toFixed(1)}`;
  }
  return `${d} L${W} ${H} Z`;
}

function ridges(W: number, H: number, horizon: number, p: Palette, rng: Rng, layers: number, peaks = false): string {
  const colours = [p.far, p.mid, p.near];
  let out = '';
  for (let i = 0; i < layers; i++) {
    const depth = i / Math.max(1, layers - 1);
    const base = horizon + (H - horizon) * (0.05 + depth * 0.45);
    const amp = H * (peaks ? 0.16 - depth * 0.07 : 0.06 - depth * 0.02);
    const colour = colours[Math.round(depth * (colours.length - 1))]!;
    out += `<path d="${ridgePath(W, H, base, amp, rng, peaks ? 1 : 0)}" fill="${colour}"/>`;
    // Atmospheric perspective: a haze band between layers.
    out += `<rect y="${(base - amp).toFixed(1)}" width="${W}" height="${(amp * 2.5).toFixed(1)}" fill="${p.skyBottom}" opacity="${(0.18 * (1 - depth)).toFixed(2)}"/>`;
  }
  return out;
}

function trees(W: number, H: number, horizon: number, p: Palette, rng: Rng): string {
  let out = '';
  for (const [depth, count, colour] of [
    [0.35, 26, p.mid],
    [0.75, 14, p.near],
  ] as const) {
    const groundY = horizon + (H - horizon) * depth;
    for (let i = 0; i < count; i++) {
      const x = rng() * W;
      const h = H * between(rng, 0.12, 0.26) * (0.6 + depth);
      const w = h * between(rng, 0.22, 0.3);
      const y = groundY + between(rng, -0.02, 0.04) * H;
      // A conifer: three stacked triangles.
      for (let k = 0; k < 3; k++) {
        const top = y - h + (h * k) / 4;
        const half = (w / 2) * (0.6 + k * 0.25);
        out += `<path d="M${x.toFixed(1)} ${top.toFixed(1)} L${(x - half).toFixed(1)} ${(top + h * 0.45).toFixed(1)} L${(x + half).toFixed(1)} ${(top + h * 0.45).toFixed(1)} Z" fill="${colour}"/>`;
      }
    }
    out += `<rect y="${groundY.toFixed(1)}" width="${W}" height="${(H - groundY).toFixed(1)}" fill="${colour}"/>`;
  }
  return out;
}

function beach(W: number, H: number, horizon: number, sunX: number, p: Palette, rng: Rng): string {
  const shore = horizon + (H - horizon) * between(rng, 0.55, 0.7);
  let out = `<defs><linearGradient id="sea" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.far}"/><stop offset="1" stop-color="${p.mid}"/></linearGradient>`;
  out += `<linearGradient id="sand" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${shade(p.near, 0.15)}"/><stop offset="1" stop-color="${shade(p.near, -0.3)}"/></linearGradient></defs>`;
  out += `<rect y="${horizon}" width="${W}" height="${H - horizon}" fill="url(#sea)"/>`;
  // The sun's glitter path on the water.
  for (let i = 0; i < 22; i++) {
    const y = horizon + (shore - horizon) * (i / 22) ** 1.4;
    const w = W * (0.02 + 0.12 * (i / 22)) * between(rng, 0.5, 1.2);
    out += `<ellipse cx="${(sunX + between(rng, -0.03, 0.03) * W).toFixed(1)}" cy="${y.toFixed(1)}" rx="${w.toFixed(1)}" ry="${(H * 0.0025).toFixed(1)}" fill="${p.glow}" opacity="${between(rng, 0.25, 0.6).toFixed(2)}"/>`;
  }
  // Foam lines, then the sand.
  for (let i = 0; i < 3; i++) {
    const y = shore - H * (0.012 * i + between(rng, 0, 0.01));
    out += `<path d="M0 ${y.toFixed(1)} Q ${(W * between(rng, 0.2, 0.4)).toFixed(1)} ${(y - H * 0.02).toFixed(1)} ${(W * 0.55).toFixed(1)} ${y.toFixed(1)} T ${W} ${(y - H * 0.01).toFixed(1)}" stroke="#ffffff" stroke-opacity="${(0.35 - i * 0.08).toFixed(2)}" stroke-width="${(H * 0.006).toFixed(1)}" fill="none"/>`;
  }
  out += `<path d="M0 ${shore.toFixed(1)} Q ${(W * 0.5).toFixed(1)} ${(shore - H * 0.03).toFixed(1)} ${W} ${(shore + H * 0.01).toFixed(1)} L${W} ${H} L0 ${H} Z" fill="url(#sand)"/>`;
  if (rng() < 0.6) out += palm(rng() < 0.5 ? W * 0.1 : W * 0.88, H, shore, shade(p.mid, -0.7), rng);
  return out;
}

function palm(x: number, H: number, ground: number, colour: string, rng: Rng): string {
  const topY = ground - H * between(rng, 0.5, 0.65);
  const lean = H * between(rng, -0.08, 0.08);
  let out = `<path d="M${x} ${H} Q ${x + lean} ${(ground + topY) / 2} ${x + lean * 1.6} ${topY}" stroke="${colour}" stroke-width="${(H * 0.018).toFixed(1)}" fill="none" stroke-linecap="round"/>`;
  const tx = x + lean * 1.6;
  for (let i = 0; i < 7; i++) {
    const a = (i / 7) * Math.PI * 2 + rng() * 0.4;
    const len = H * between(rng, 0.12, 0.18);
    const ex = tx + Math.cos(a) * len;
    const ey = topY + Math.abs(Math.sin(a)) * len * 0.5 + len * 0.15;
    out += `<path d="M${tx} ${topY} Q ${((tx + ex) / 2).toFixed(1)} ${(topY - len * 0.25).toFixed(1)} ${ex.toFixed(1)} ${ey.toFixed(1)}" stroke="${colour}" stroke-width="${(H * 0.012).toFixed(1)}" fill="none" stroke-linecap="round"/>`;
  }
  return out;
}

function city(W: number, H: number, horizon: number, p: Palette, lit: boolean, rng: Rng): string {
  let out = '';
  for (const [depth, colour] of [
    [0, p.far],
    [1, p.mid],
  ] as const) {
    let x = -rng() * W * 0.05;
    const base = horizon + (H - horizon) * (0.15 + depth * 0.35);
    const windows = ['', '', ''];
    while (x < W) {
      const bw = W * between(rng, 0.05, 0.11) * (1 + depth * 0.3);
      const bh = H * between(rng, 0.12, 0.42) * (1 - depth * 0.25);
      const top = base - bh;
      out += `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(bw + 1).toFixed(1)}" height="${(H - top).toFixed(1)}" fill="${colour}"/>`;
      const cols = Math.max(2, Math.floor(bw / (W * 0.014)));
      const rows = Math.floor(bh / (H * 0.022));
      const litShare = lit ? 0.45 : 0.12;
      const ww = ((bw / cols) * 0.45).toFixed(1);
      const wh = (H * 0.009).toFixed(1);
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          if (rng() > litShare) continue;
          windows[Math.floor(rng() * 3)] += `M${(x + (bw * (c + 0.3)) / cols).toFixed(1)} ${(top + H * 0.012 + r * H * 0.022).toFixed(1)}h${ww}v${wh}h-${ww}z`;
        }
      }
      x += bw + W * between(rng, 0.003, 0.02);
    }
    out += `<rect y="${base.toFixed(1)}" width="${W}" height="${(H - base).toFixed(1)}" fill="${colour}"/>`;
    // Lit windows as three merged paths (one per brightness): one element each keeps librsvg fast.
    out += windows.map((d, i) => (d ? `<path d="${d}" fill="${p.accent}" opacity="${[0.45, 0.7, 0.9][i]}"/>` : '')).join('');
  }
  // Street glow along the bottom.
  out += `<rect y="${(H * 0.88).toFixed(1)}" width="${W}" height="${(H * 0.12).toFixed(1)}" fill="${p.accent}" opacity="0.12"/>`;
  out += `<rect y="${(H * 0.9).toFixed(1)}" width="${W}" height="${(H * 0.1).toFixed(1)}" fill="${p.near}"/>`;
  return out;
}

function dunes(W: number, H: number, horizon: number, p: Palette, rng: Rng): string {
  let out = '';
  const colours = [p.far, p.mid, p.near];
  for (let i = 0; i < 3; i++) {
    const base = horizon + (H - horizon) * (0.05 + i * 0.3);
    const crest = W * between(rng, 0.2, 0.8);
    const lift = H * between(rng, 0.05, 0.12);
    const c = colours[i]!;
    // Lit on the sun's side of the crest, shaded on the other.
    out += `<defs><linearGradient id="dune${i}" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="${shade(c, 0.12)}"/><stop offset="${(crest / W).toFixed(2)}" stop-color="${shade(c, 0.05)}"/><stop offset="${Math.min(1, crest / W + 0.08).toFixed(2)}" stop-color="${shade(c, -0.18)}"/><stop offset="1" stop-color="${shade(c, -0.25)}"/></linearGradient></defs>`;
    out += `<path d="M0 ${(base + lift * 0.3).toFixed(1)} Q ${crest.toFixed(1)} ${(base - lift).toFixed(1)} ${W} ${(base + lift * 0.5).toFixed(1)} L${W} ${H} L0 ${H} Z" fill="url(#dune${i})"/>`;
  }
  return out;
}

function studio(W: number, H: number, floor: number, p: Palette): string {
  return (
    `<defs><radialGradient id="backdrop" cx="0.5" cy="0.4" r="0.7"><stop offset="0" stop-color="${shade(p.skyBottom, 0.25)}"/><stop offset="1" stop-color="${shade(p.skyTop, -0.2)}"/></radialGradient>` +
    `<linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${shade(p.far, -0.1)}"/><stop offset="1" stop-color="${shade(p.far, -0.5)}"/></linearGradient></defs>` +
    `<rect width="${W}" height="${H}" fill="url(#backdrop)"/>` +
    `<rect y="${floor.toFixed(1)}" width="${W}" height="${(H - floor).toFixed(1)}" fill="url(#floor)"/>`
  );
}

function bokeh(W: number, H: number, count: number, rng: Rng): string {
  let out = '';
  for (let i = 0; i < count; i++) {
    const r = Math.min(W, H) * between(rng, 0.015, 0.06);
    out += `<circle cx="${(rng() * W).toFixed(1)}" cy="${(rng() * H * 0.75).toFixed(1)}" r="${r.toFixed(1)}" fill="url(#bokeh)" opacity="${between(rng, 0.3, 0.8).toFixed(2)}"/>`;
  }
  return out;
}

/** Faint shafts of light from the sun, fading with distance. */
function rays(W: number, H: number, sun: { x: number; y: number }, rng: Rng): string {
  let out = '';
  for (let i = 0; i < 5; i++) {
    const a = between(rng, 0.2, Math.PI - 0.2);
    const spread = between(rng, 0.02, 0.05);
    const len = Math.hypot(W, H);
    const x1 = sun.x + Math.cos(a - spread) * len;
    const y1 = sun.y + Math.sin(a - spread) * len;
    const x2 = sun.x + Math.cos(a + spread) * len;
    const y2 = sun.y + Math.sin(a + spread) * len;
    out += `<path d="M${sun.x.toFixed(1)} ${sun.y.toFixed(1)} L${x1.toFixed(1)} ${y1.toFixed(1)} L${x2.toFixed(1)} ${y2.toFixed(1)} Z" fill="url(#ray)" opacity="${between(rng, 0.04, 0.1).toFixed(2)}"/>`;
  }
  return out;
}

/** A backlit figure: shoulders, neck and head in shadow, with a rim of light from behind. */
function person(f: FigureBox, p: Palette): string {
  const { cx, headCy, headRx, headRy, shoulderY, shoulderHalf } = f;
  const neckW = headRx * 0.5;
  const torso =
    `M${cx - neckW} ${headCy + headRy * 0.6} L${cx - neckW * 1.05} ${shoulderY - headRy * 0.3} ` +
    `C ${cx - shoulderHalf * 0.55} ${shoulderY - headRy * 0.15} ${cx - shoulderHalf * 0.95} ${shoulderY + headRy * 0.05} ${cx - shoulderHalf} ${shoulderY + headRy * 0.9} ` +
    `L${cx - shoulderHalf * 1.15} ${shoulderY + headRy * 6} L${cx + shoulderHalf * 1.15} ${shoulderY + headRy * 6} ` +
    `L${cx + shoulderHalf} ${shoulderY + headRy * 0.9} C ${cx + shoulderHalf * 0.95} ${shoulderY + headRy * 0.05} ${cx + shoulderHalf * 0.55} ${shoulderY - headRy * 0.15} ${cx + neckW * 1.05} ${shoulderY - headRy * 0.3} ` +
    `L${cx + neckW} ${headCy + headRy * 0.6} Z`;
  // Hair: the head's outline is a little wider and taller at the crown than a plain ellipse.
  const head =
    `<ellipse cx="${cx}" cy="${headCy}" rx="${headRx}" ry="${headRy}"/>` +
    `<ellipse cx="${cx + headRx * 0.04}" cy="${headCy - headRy * 0.22}" rx="${headRx * 1.04}" ry="${headRy * 0.8}"/>`;
  const shape = `<path d="${torso}"/>${head}`;
  // Backlit, so the figure is dark whatever the ground's colour; a touch of the scene keeps it in it.
  const dark = mix('#15171d', p.mid, 0.25);
  const lift = mix(dark, p.glow, 0.18);
  const rim = (width: number, opacity: number) =>
    `<g fill="none" stroke="${p.glow}" stroke-width="${(headRx * width).toFixed(1)}" stroke-opacity="${opacity}">${shape}</g>`;
  return (
    `<defs><linearGradient id="body" gradientUnits="userSpaceOnUse" x1="0" y1="${headCy - headRy * 1.1}" x2="0" y2="${shoulderY + headRy * 4}"><stop offset="0" stop-color="${lift}"/><stop offset="0.5" stop-color="${dark}"/><stop offset="1" stop-color="${shade(dark, -0.4)}"/></linearGradient></defs>` +
    rim(0.22, 0.08) +
    rim(0.12, 0.14) +
    rim(0.05, 0.35) +
    `<g fill="url(#body)">${shape}</g>` +
    // A soft key light on one cheek and shoulder, so the figure reads as lit, not as a cut-out.
    // Masked rather than filled shape by shape, so the overlaps of head, hair and neck do not show (a
    // clipPath would not do: librsvg cancels overlapping parts of opposite winding).
    `<defs><radialGradient id="key" gradientUnits="userSpaceOnUse" cx="${cx + f.light * headRx * 0.9}" cy="${headCy - headRy * 0.1}" r="${headRy * 1.6}"><stop offset="0" stop-color="${p.glow}" stop-opacity="0.22"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient><mask id="figure" maskUnits="userSpaceOnUse"><g fill="#fff">${shape}</g></mask></defs>` +
    `<rect x="${cx - shoulderHalf * 1.3}" y="${headCy - headRy * 1.3}" width="${shoulderHalf * 2.6}" height="${headRy * 8}" fill="url(#key)" mask="url(#figure)"/>`
  );
}

/**
 * The character's reference photo, blended into the scene where the subject stands like a double
 * exposure: a soft oval that fades into the light, more present the higher the LoRA scale.
 */
async function portraitLayer({ lora, scale }: AppliedLora, f: FigureBox, p: Palette, width: number, height: number): Promise<OverlayOptions> {
  const side = Math.max(16, Math.min(width, height, Math.round(f.headRy * 4.6)));
  const opacity = Math.min(1, Math.max(0.3, 0.2 + 0.65 * scale));
  const mask = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><defs><radialGradient id="m" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fff" stop-opacity="${opacity}"/><stop offset="0.45" stop-color="#fff" stop-opacity="${opacity * 0.85}"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><rect width="${side}" height="${side}" fill="url(#m)"/></svg>`,
  );
  const [r, g, b] = parseHex(p.glow).map((v) => v / 255) as [number, number, number];
  const photo = await sharp(Buffer.from(lora.referenceImage, 'base64'))
    .resize(side, side, { fit: 'cover', position: 'centre' })
    // Lit by the scene: a faint wash of its light colour.
    .linear([0.88 + r * 0.12, 0.88 + g * 0.12, 0.88 + b * 0.12], [0, 0, 0])
    .ensureAlpha()
    .composite([{ input: mask, blend: 'dest-in' }])
    .png({ compressionLevel: 1 })
    .toBuffer();
  const left = Math.min(width - side, Math.max(0, Math.round(f.cx - side / 2)));
  const top = Math.min(height - side, Math.max(0, Math.round(f.headCy + f.headRy * 0.7 - side / 2)));
  return { input: photo, left, top };
}

/** Film grain, added in place; fewer inference steps leave more of it, as a diffusion model would. */
function addGrain(pixels: Buffer, steps: number, rng: Rng): void {
  const amplitude = 8 + 36 / Math.max(1, steps);
  let s = (rng() * 4294967296) >>> 0 || 1;
  for (let i = 0; i < pixels.length; i += 3) {
    // xorshift32: fast enough for a megapixel in a few milliseconds; one value per pixel keeps it grey.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const n = (((s >>> 0) & 0xff) / 255 - 0.5) * amplitude;
    pixels[i] = clampByte(pixels[i]! + n);
    pixels[i + 1] = clampByte(pixels[i + 1]! + n);
    pixels[i + 2] = clampByte(pixels[i + 2]! + n);
  }
}

function clampByte(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** A small, quiet "preview" label in the bottom-right corner. */
function previewMark(width: number, height: number): OverlayOptions {
  const unit = Math.max(9, Math.round(Math.min(width, height) * 0.02));
  const padX = unit * 0.8;
  const boxW = Math.round(unit * 4.6 + padX * 2 + unit * 1.1);
  const boxH = Math.round(unit * 1.9);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${boxW}" height="${boxH}">` +
    `<rect width="${boxW}" height="${boxH}" rx="${boxH / 2}" fill="#000" fill-opacity="0.35"/>` +
    `<circle cx="${padX + unit * 0.35}" cy="${boxH / 2}" r="${unit * 0.32}" fill="none" stroke="#fff" stroke-opacity="0.85" stroke-width="${unit * 0.12}"/>` +
    `<text x="${padX + unit * 1.05}" y="${boxH / 2 + unit * 0.36}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="${unit}" letter-spacing="${unit * 0.08}" fill="#fff" fill-opacity="0.85">preview</text>` +
    `</svg>`;
  return { input: Buffer.from(svg), left: width - boxW - unit, top: height - boxH - unit };
}
