import { useId } from 'react';

/**
 * The site's example photos, drawn in code: the same illustrated person as a casual phone selfie ("before")
 * or as a generated shot in a chosen scene ("after"). Inline SVG: no request, no layout shift, nothing borrowed.
 */
export interface Person {
  skin: string;
  skinShade: string;
  hair: string;
  hairStyle: 'long' | 'short' | 'curly' | 'bun';
  /** Colour of the everyday top worn in the selfies. */
  top: string;
}

export type Scene = 'selfie' | 'studio' | 'outdoor' | 'city' | 'cafe';

export const PEOPLE = {
  maya: { skin: '#e8b894', skinShade: '#d29a74', hair: '#2b1d18', hairStyle: 'long', top: '#8aa4c8' },
  leo: { skin: '#f3d0b5', skinShade: '#dfae8d', hair: '#7a4b2a', hairStyle: 'short', top: '#9bb58a' },
  ama: { skin: '#9a6445', skinShade: '#7f4f35', hair: '#1a1412', hairStyle: 'curly', top: '#d8a05a' },
  sofia: { skin: '#f0c6a4', skinShade: '#d9a582', hair: '#b8864b', hairStyle: 'bun', top: '#c98a9a' },
} satisfies Record<string, Person>;

const OUTFIT: Record<Exclude<Scene, 'selfie'>, { body: string; inner: string }> = {
  studio: { body: '#2d3142', inner: '#f4f1ec' },
  outdoor: { body: '#c9b79c', inner: '#f6efe4' },
  city: { body: '#1f2a44', inner: '#dfe6f2' },
  cafe: { body: '#7b4f3a', inner: '#efe2d3' },
};

function Background({ scene, id }: { scene: Scene; id: string }) {
  switch (scene) {
    case 'selfie':
      return (
        <>
          <rect width="300" height="375" fill="#d8d2c8" />
          <rect x="190" y="40" width="90" height="130" rx="4" fill="#c3d1da" stroke="#eee9e1" strokeWidth="6" />
          <rect x="14" y="210" width="70" height="8" fill="#b9ab97" />
          <rect x="22" y="178" width="14" height="32" fill="#9c8e7a" />
          <rect x="40" y="188" width="22" height="22" fill="#a7b59c" />
        </>
      );
    case 'studio':
      return (
        <>
          <radialGradient id={`${id}bg`} cx="0.5" cy="0.4" r="0.75">
            <stop offset="0" stopColor="#7d8aa8" />
            <stop offset="1" stopColor="#262c3d" />
          </radialGradient>
          <rect width="300" height="375" fill={`url(#${id}bg)`} />
        </>
      );
    case 'outdoor':
      return (
        <>
          <linearGradient id={`${id}bg`} x1="0" y1="0" x2="0" y2="1">
            <stop offset="0" stopColor="#f7a76c" />
            <stop offset="0.55" stopColor="#fcd9a8" />
            <stop offset="1" stopColor="#a9c3a0" />
          </linearGradient>
          <rect width="300" height="375" fill={`url(#${id}bg)`} />
          <circle cx="236" cy="96" r="38" fill="#fff3d6" opacity="0.8" />
          <path d="M0 250 Q80 205 160 240 T300 228 V375 H0Z" fill="#7f9f78" opacity="0.85" />
          <path d="M0 290 Q110 250 200 282 T300 275 V375 H0Z" fill="#5f8060" opacity="0.9" />
        </>
      );
    case 'city':
      return (
        <>
          <linearGradient id={`${id}bg`} x1="0" y1="0" x2="0" y2="1">
            <stop offset="0" stopColor="#36466b" />
            <stop offset="1" stopColor="#18203a" />
          </linearGradient>
          <rect width="300" height="375" fill={`url(#${id}bg)`} />
          {[20, 70, 215, 262].map((x, i) => (
            <rect key={x} x={x} y={60 + (i % 2) * 40} width="40" height="320" fill="#2a3658" />
          ))}
          {[
            [40, 90],
            [85, 130],
            [232, 110],
            [276, 150],
            [40, 170],
            [232, 200],
            [85, 210],
          ].map(([cx, cy]) => (
            <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="9" fill="#ffd58a" opacity="0.45" />
          ))}
        </>
      );
    case 'cafe':
      return (
        <>
          <linearGradient id={`${id}bg`} x1="0" y1="0" x2="1" y2="1">
            <stop offset="0" stopColor="#f1dcc0" />
            <stop offset="1" stopColor="#b98a62" />
          </linearGradient>
          <rect width="300" height="375" fill={`url(#${id}bg)`} />
          <rect x="0" y="0" width="110" height="200" fill="#fff6e6" opacity="0.55" />
          {[
            [40, 60],
            [250, 80],
            [220, 170],
            [60, 150],
          ].map(([cx, cy]) => (
            <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="16" fill="#fff1cf" opacity="0.5" />
          ))}
        </>
      );
  }
}

function HairBack({ person }: { person: Person }) {
  if (person.hairStyle === 'long')
    return <path d="M86 170 C80 100 115 92 150 92 C190 92 222 105 216 175 L226 300 C200 318 100 318 76 300Z" fill={person.hair} />;
  if (person.hairStyle === 'curly')
    return (
      <g fill={person.hair}>
        {[
          [100, 130],
          [125, 105],
          [155, 98],
          [185, 106],
          [205, 132],
          [96, 165],
          [210, 165],
          [150, 118],
        ].map(([cx, cy]) => (
          <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="30" />
        ))}
      </g>
    );
  if (person.hairStyle === 'bun') return <circle cx="150" cy="92" r="26" fill={person.hair} />;
  return null;
}

function HairFront({ person }: { person: Person }) {
  switch (person.hairStyle) {
    case 'long':
      return (
        <path
          d="M92 165 C92 112 120 94 152 96 C186 98 210 116 208 165 C196 140 172 126 150 124 C128 126 104 140 92 165Z"
          fill={person.hair}
        />
      );
    case 'short':
      return (
        <path
          d="M92 168 C86 120 116 98 152 98 C190 98 216 120 208 168 C204 146 192 132 176 128 C150 136 118 132 100 140 C96 148 94 158 92 168Z"
          fill={person.hair}
        />
      );
    case 'bun':
      return (
        <path
          d="M92 160 C94 120 122 106 150 106 C180 106 208 122 208 160 C190 136 166 128 150 128 C132 128 108 138 92 160Z"
          fill={person.hair}
        />
      );
    case 'curly':
      return null;
  }
}

export function Portrait({
  person,
  scene,
  label,
  width,
  height,
  className,
}: {
  person: Person;
  scene: Scene;
  label: string;
  width: number;
  height: number;
  className?: string;
}) {
  const id = `p${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const selfie = scene === 'selfie';
  const outfit = selfie ? { body: person.top, inner: person.top } : OUTFIT[scene];
  return (
    <svg viewBox="0 0 300 375" width={width} height={height} role="img" aria-label={label} className={className}>
      <defs>
        <radialGradient id={`${id}light`} cx="0.38" cy="0.35" r="0.7">
          <stop offset="0" stopColor="#fff" stopOpacity={selfie ? 0.05 : 0.32} />
          <stop offset="1" stopColor="#fff" stopOpacity="0" />
        </radialGradient>
        <radialGradient id={`${id}vignette`} cx="0.5" cy="0.45" r="0.75">
          <stop offset="0.6" stopColor="#000" stopOpacity="0" />
          <stop offset="1" stopColor="#000" stopOpacity={selfie ? 0.05 : 0.35} />
        </radialGradient>
      </defs>
      <Background scene={scene} id={id} />
      <g transform={selfie ? 'rotate(-4 150 220)' : undefined}>
        <HairBack person={person} />
        {/* Shoulders and clothes */}
        <path d="M20 400 C24 318 78 288 150 286 C222 288 276 318 282 400Z" fill={outfit.body} />
        {selfie ? (
          <path d="M122 288 Q150 316 178 288Z" fill={person.skinShade} />
        ) : (
          <>
            <path d="M124 288 L150 350 L176 288Z" fill={outfit.inner} />
            <path d="M118 290 L150 356 L132 375 L96 300Z M182 290 L150 356 L168 375 L204 300Z" fill="#000" opacity="0.18" />
          </>
        )}
        <rect x="130" y="226" width="40" height="66" rx="18" fill={person.skinShade} />
        <ellipse cx="93" cy="182" rx="11" ry="16" fill={person.skinShade} />
        <ellipse cx="207" cy="182" rx="11" ry="16" fill={person.skinShade} />
        <ellipse cx="150" cy="172" rx="57" ry="70" fill={person.skin} />
        <HairFront person={person} />
        {/* Face */}
        <path
          d="M118 160 Q128 153 138 159 M162 159 Q172 153 182 160"
          stroke={person.hair}
          strokeWidth="4"
          strokeLinecap="round"
          fill="none"
        />
        <ellipse cx="128" cy="176" rx="5" ry="6" fill="#2a1d1a" />
        <ellipse cx="172" cy="176" rx="5" ry="6" fill="#2a1d1a" />
        <path d="M150 180 Q146 198 152 202" stroke={person.skinShade} strokeWidth="3" strokeLinecap="round" fill="none" />
        <path
          d={selfie ? 'M136 216 Q150 221 164 216' : 'M132 212 Q150 228 168 212'}
          stroke="#a5524b"
          strokeWidth="4"
          strokeLinecap="round"
          fill="none"
        />
        <circle cx="118" cy="200" r="9" fill="#e77f7f" opacity="0.18" />
        <circle cx="182" cy="200" r="9" fill="#e77f7f" opacity="0.18" />
      </g>
      <rect width="300" height="375" fill={`url(#${id}light)`} />
      <rect width="300" height="375" fill={`url(#${id}vignette)`} />
      {/* Phone selfies look flat and slightly washed out. */}
      {selfie && <rect width="300" height="375" fill="#9c9c9c" opacity="0.14" />}
    </svg>
  );
}
