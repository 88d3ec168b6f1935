import { between, type Rng } from './builtin-random.ts';
import { shade, type Palette, type SceneReading } from './builtin-scene.ts';

/**
 * The places the built-in engine paints behind a person (or alone): sky, land, light and weather, as SVG
 * strings in image coordinates. Painted small and scaled up by the generator, so softness is free; details
 * made of many elements (windows, stars, books, snowflakes, rain) are merged into a few paths to keep
 * librsvg fast.
 */

export interface Scene {
  defs: string;
  /** Sky and land: painted small, so soft. */
  backdrop: string;
  /** Light and weather: painted at the paint size over the backdrop. */
  foreground: string;
  /** The nearest snow or rain, in image coordinates: painted in the foreground and again over a person. */
  near: string;
}

/** Where the person stands, for the light behind them: the chest's centre and the head's height, in pixels. */
export interface Subject {
  x: number;
  y: number;
  size: number;
}

/** The place the prompt names, in its light and weather, around the person if there is one. */
export function composeScene(W: number, H: number, reading: SceneReading, p: Palette, subject: Subject | null, rng: Rng): Scene {
  const withPerson = subject !== null;
  const indoors = reading.kind === 'studio' || reading.kind === 'interior';
  const horizon = H * (reading.kind === 'studio' ? 0.78 : reading.kind === 'interior' ? 0.8 : between(rng, 0.52, 0.66));
  const sun = { x: W * between(rng, 0.2, 0.8), y: horizon - H * between(rng, 0.06, 0.3) };
  const overcast = reading.weather !== null;
  const defs = [
    `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.skyTop}"/><stop offset="${(horizon / H).toFixed(3)}" stop-color="${p.skyBottom}"/><stop offset="1" stop-color="${shade(p.skyBottom, -0.25)}"/></linearGradient>`,
    `<radialGradient id="glow"><stop offset="0" stop-color="${p.glow}" stop-opacity="0.95"/><stop offset="0.25" stop-color="${p.glow}" stop-opacity="0.45"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="disc"><stop offset="0" stop-color="${shade(p.glow, 0.5)}"/><stop offset="0.7" stop-color="${shade(p.glow, 0.4)}"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="bokeh"><stop offset="0" stop-color="${p.accent}" stop-opacity="0.5"/><stop offset="0.82" stop-color="${p.accent}" stop-opacity="0.32"/><stop offset="0.9" stop-color="${shade(p.accent, 0.3)}" stop-opacity="0.4"/><stop offset="1" stop-color="${p.accent}" stop-opacity="0"/></radialGradient>`,
    `<radialGradient id="ray" gradientUnits="userSpaceOnUse" cx="${sun.x}" cy="${sun.y}" r="${Math.hypot(W, H)}"><stop offset="0" stop-color="${p.glow}" stop-opacity="0.5"/><stop offset="1" stop-color="${p.glow}" stop-opacity="0"/></radialGradient>`,
  ].join('');
  const back: string[] = [`<rect width="${W}" height="${H}" fill="url(#sky)"/>`];
  if (reading.night && !indoors && !overcast) back.push(stars(W, horizon, rng));
  if (!indoors) {
    back.push(
      `<circle cx="${sun.x}" cy="${sun.y}" r="${W * 0.55}" fill="url(#glow)" opacity="${reading.night || overcast ? 0.35 : 0.8}"/>`,
    );
    if (!overcast) back.push(`<circle cx="${sun.x}" cy="${sun.y}" r="${W * (reading.night ? 0.05 : 0.045)}" fill="url(#disc)"/>`);
  }
  switch (reading.kind) {
    case 'beach':
      back.push(beach(W, H, horizon, sun.x, p, rng));
      break;
    case 'city':
      back.push(city(W, H, horizon, p, reading.night || reading.golden || reading.weather === 'rain', rng));
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
    case 'interior':
      back.push(interior(W, H, horizon, p, reading, rng));
      break;
    default:
      back.push(ridges(W, H, horizon, p, rng, 3));
  }
  if (reading.weather === 'fog') back.push(fog(W, H, horizon, p));
  const front: string[] = [];
  if (reading.weather !== 'snow' && reading.kind !== 'studio') {
    front.push(bokeh(W, H, withPerson ? 14 : reading.night || reading.kind === 'city' ? 10 : 5, rng));
  }
  if (!reading.night && !indoors && !overcast) front.push(rays(W, H, sun, rng));
  if (subject && (reading.night || reading.weather === 'rain')) {
    // A light behind the person, as a photographer would set one: dark clothes stand out from a dark scene.
    front.push(
      `<ellipse cx="${subject.x.toFixed(1)}" cy="${subject.y.toFixed(1)}" rx="${(subject.size * 2.2).toFixed(1)}" ry="${(subject.size * 3).toFixed(1)}" fill="url(#glow)" opacity="0.5"/>`,
    );
  }
  if (reading.weather === 'rain') front.push(wetGround(W, H, horizon, p, rng));
  const falling = reading.weather === 'snow' || reading.weather === 'rain' ? reading.weather : null;
  if (falling) front.push(weatherParticles(W, H, falling, 'far', rng));
  const near = falling ? weatherParticles(W, H, falling, 'near', rng) : '';
  return { defs, backdrop: back.join(''), foreground: front.join('') + near, near };
}

/**
 * Falling snow or rain, merged into a few paths. 'far' is fine and dense (behind the person, painted small);
 * 'near' is larger and sparse, drawn at full size in front of the person.
 */
function weatherParticles(W: number, H: number, weather: 'snow' | 'rain', depth: 'far' | 'near', rng: Rng): string {
  const unit = Math.min(W, H) / 1024;
  const near = depth === 'near';
  if (weather === 'snow') {
    const paths = ['', ''];
    const count = near ? 46 : 260;
    for (let i = 0; i < count; i++) {
      const r = (near ? between(rng, 3, 7.5) : between(rng, 1.2, 3.4)) * unit;
      const x = rng() * W;
      const y = rng() * H;
      paths[rng() < 0.5 ? 0 : 1] +=
        `M${(x - r).toFixed(1)} ${y.toFixed(1)}a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(2 * r).toFixed(2)} 0a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(-2 * r).toFixed(2)} 0`;
    }
    return paths.map((d, i) => `<path d="${d}" fill="#fff" opacity="${near ? [0.75, 0.95][i] : [0.55, 0.85][i]}"/>`).join('');
  }
  let d = '';
  const count = near ? 70 : 320;
  const slant = between(rng, 0.12, 0.22);
  for (let i = 0; i < count; i++) {
    const len = (near ? between(rng, 40, 90) : between(rng, 14, 34)) * unit;
    const x = rng() * W;
    const y = rng() * H;
    d += `M${x.toFixed(1)} ${y.toFixed(1)}l${(len * slant).toFixed(1)} ${len.toFixed(1)}`;
  }
  return `<path d="${d}" stroke="#dfe8f2" stroke-opacity="${near ? 0.38 : 0.3}" stroke-width="${((near ? 2.2 : 1.4) * unit).toFixed(2)}" stroke-linecap="round" fill="none"/>`;
}

/** Rain on the ground: a sheen and the lights' reflections drawn down into it. */
function wetGround(W: number, H: number, horizon: number, p: Palette, rng: Rng): string {
  const ground = horizon + (H - horizon) * 0.45;
  let out = `<rect y="${ground.toFixed(1)}" width="${W}" height="${(H - ground).toFixed(1)}" fill="${p.glow}" opacity="0.06"/>`;
  for (let i = 0; i < 9; i++) {
    const x = rng() * W;
    const w = W * between(rng, 0.006, 0.02);
    out += `<rect x="${x.toFixed(1)}" y="${ground.toFixed(1)}" width="${w.toFixed(1)}" height="${((H - ground) * between(rng, 0.4, 0.9)).toFixed(1)}" fill="${p.accent}" opacity="${between(rng, 0.12, 0.28).toFixed(2)}"/>`;
  }
  return out;
}

/** Fog: a pale band that thickens towards the horizon and swallows the distance. */
function fog(W: number, H: number, horizon: number, p: Palette): string {
  const haze = shade(p.skyBottom, 0.35);
  return (
    `<defs><linearGradient id="fog" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${haze}" stop-opacity="0.15"/><stop offset="${(horizon / H).toFixed(3)}" stop-color="${haze}" stop-opacity="0.75"/><stop offset="1" stop-color="${haze}" stop-opacity="0.3"/></linearGradient></defs>` +
    `<rect width="${W}" height="${H}" fill="url(#fog)"/>`
  );
}

/** A room: a warm wall, a bright window, and shelves of books, a café's lamps and counter, or a picture. */
function interior(W: number, H: number, floor: number, p: Palette, reading: SceneReading, rng: Rng): string {
  const wall = shade(p.skyBottom, -0.08);
  let out =
    `<defs><linearGradient id="wall" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${shade(p.skyTop, -0.1)}"/><stop offset="1" stop-color="${wall}"/></linearGradient>` +
    `<linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.mid}"/><stop offset="1" stop-color="${shade(p.near, -0.2)}"/></linearGradient></defs>` +
    `<rect width="${W}" height="${H}" fill="url(#wall)"/>`;
  const windowLeft = rng() < 0.5;
  const ww = W * between(rng, 0.22, 0.3);
  const wx = windowLeft ? W * between(rng, 0.02, 0.08) : W - ww - W * between(rng, 0.02, 0.08);
  const wy = H * 0.12;
  const wh = floor - wy - H * 0.18;
  const pane = reading.night ? '#1b2346' : shade(p.glow, 0.1);
  const frame = shade(p.far, 0.2);
  out += `<rect x="${(wx - W * 0.01).toFixed(1)}" y="${(wy - W * 0.01).toFixed(1)}" width="${(ww + W * 0.02).toFixed(1)}" height="${(wh + W * 0.02).toFixed(1)}" fill="${frame}"/>`;
  out += `<rect x="${wx.toFixed(1)}" y="${wy.toFixed(1)}" width="${ww.toFixed(1)}" height="${wh.toFixed(1)}" fill="${pane}"/>`;
  out += `<path d="M${(wx + ww / 2).toFixed(1)} ${wy.toFixed(1)}v${wh.toFixed(1)}M${wx.toFixed(1)} ${(wy + wh / 2).toFixed(1)}h${ww.toFixed(1)}" stroke="${frame}" stroke-width="${(W * 0.008).toFixed(1)}"/>`;
  if (!reading.night)
    out += `<ellipse cx="${(wx + ww / 2).toFixed(1)}" cy="${(wy + wh / 2).toFixed(1)}" rx="${(ww * 1.3).toFixed(1)}" ry="${(wh * 0.9).toFixed(1)}" fill="url(#glow)" opacity="0.6"/>`;
  const freeLeft = windowLeft ? wx + ww + W * 0.05 : W * 0.02;
  const freeRight = windowLeft ? W * 0.98 : wx - W * 0.05;
  if (reading.interior === 'shelves') {
    // Bookcases: shelves of books of varied height and colour, merged into one path per colour.
    const colours = [p.accent, shade(p.far, -0.2), '#7a3b2e', '#2e4a5e', '#c9b27a', '#3e5a3a'];
    const books = colours.map(() => '');
    out += `<rect x="${freeLeft.toFixed(1)}" y="${(H * 0.06).toFixed(1)}" width="${(freeRight - freeLeft).toFixed(1)}" height="${(floor - H * 0.06).toFixed(1)}" fill="${shade(p.near, 0.1)}"/>`;
    for (let shelf = H * 0.1; shelf < floor - H * 0.1; shelf += H * 0.16) {
      let x = freeLeft + W * 0.01;
      while (x < freeRight - W * 0.03) {
        const bw = W * between(rng, 0.012, 0.024);
        const bh = H * between(rng, 0.09, 0.13);
        books[Math.floor(rng() * colours.length)] +=
          `M${x.toFixed(1)} ${(shelf + H * 0.14 - bh).toFixed(1)}h${bw.toFixed(1)}v${bh.toFixed(1)}h${(-bw).toFixed(1)}z`;
        x += bw + W * 0.002;
      }
      out += `<rect x="${freeLeft.toFixed(1)}" y="${(shelf + H * 0.14).toFixed(1)}" width="${(freeRight - freeLeft).toFixed(1)}" height="${(H * 0.015).toFixed(1)}" fill="${shade(p.near, -0.2)}"/>`;
    }
    out += books.map((d, i) => (d ? `<path d="${d}" fill="${colours[i]}"/>` : '')).join('');
  } else if (reading.interior === 'cafe') {
    // Pendant lamps over a counter.
    for (let i = 0; i < 3; i++) {
      const x = freeLeft + ((freeRight - freeLeft) * (i + 0.5)) / 3;
      const y = H * between(rng, 0.2, 0.3);
      out += `<path d="M${x.toFixed(1)} 0V${y.toFixed(1)}" stroke="${p.near}" stroke-width="${(W * 0.003).toFixed(1)}"/><circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${(W * 0.09).toFixed(1)}" fill="url(#glow)"/><path d="M${(x - W * 0.03).toFixed(1)} ${(y + W * 0.015).toFixed(1)}Q${x.toFixed(1)} ${(y - W * 0.04).toFixed(1)} ${(x + W * 0.03).toFixed(1)} ${(y + W * 0.015).toFixed(1)}Z" fill="${p.near}"/>`;
    }
    out += `<rect y="${(floor - H * 0.2).toFixed(1)}" width="${W}" height="${(H * 0.2).toFixed(1)}" fill="${p.mid}"/><rect y="${(floor - H * 0.2).toFixed(1)}" width="${W}" height="${(H * 0.025).toFixed(1)}" fill="${shade(p.mid, 0.25)}"/>`;
  } else {
    // A framed picture and a plant.
    const px = freeLeft + (freeRight - freeLeft) * between(rng, 0.3, 0.5);
    out += `<rect x="${px.toFixed(1)}" y="${(H * 0.2).toFixed(1)}" width="${(W * 0.14).toFixed(1)}" height="${(H * 0.18).toFixed(1)}" fill="${p.accent}" stroke="${p.near}" stroke-width="${(W * 0.008).toFixed(1)}"/>`;
    const plant = windowLeft ? W * 0.9 : W * 0.1;
    const potTop = floor - H * 0.08;
    out += `<path d="M${(plant - W * 0.03).toFixed(1)} ${floor.toFixed(1)}h${(W * 0.06).toFixed(1)}l${(-W * 0.008).toFixed(1)} ${(-H * 0.08).toFixed(1)}h${(-W * 0.044).toFixed(1)}z" fill="${p.near}"/>`;
    for (let i = 0; i < 7; i++) {
      const a = -Math.PI / 2 + between(rng, -1.1, 1.1);
      const len = H * between(rng, 0.1, 0.2);
      const cx = plant + Math.cos(a) * len * 0.5;
      const cy = potTop + Math.sin(a) * len * 0.5;
      out += `<ellipse cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" rx="${(len * 0.5).toFixed(1)}" ry="${(W * 0.012).toFixed(1)}" transform="rotate(${((a * 180) / Math.PI).toFixed(1)} ${cx.toFixed(1)} ${cy.toFixed(1)})" fill="#3e6a44"/>`;
    }
  }
  out += `<rect y="${floor.toFixed(1)}" width="${W}" height="${(H - floor).toFixed(1)}" fill="url(#floor)"/>`;
  return out;
}

/** Stars as three merged paths (one per brightness): one element each keeps librsvg fast. */
function stars(W: number, horizon: number, rng: Rng): string {
  const paths = ['', '', ''];
  for (let i = 0; i < 140; i++) {
    const r = ((rng() < 0.9 ? between(rng, 0.6, 1.4) : between(rng, 1.6, 2.6)) * W) / 1024;
    const x = rng() * W;
    const y = rng() * horizon * 0.9;
    paths[Math.floor(rng() * 3)] +=
      `M${(x - r).toFixed(1)} ${y.toFixed(1)}a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(2 * r).toFixed(2)} 0a${r.toFixed(2)} ${r.toFixed(2)} 0 1 0 ${(-2 * r).toFixed(2)} 0`;
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
          windows[Math.floor(rng() * 3)] +=
            `M${(x + (bw * (c + 0.3)) / cols).toFixed(1)} ${(top + H * 0.012 + r * H * 0.022).toFixed(1)}h${ww}v${wh}h-${ww}z`;
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
