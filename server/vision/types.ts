/**
 * What the local analyser finds in one image. Plain data (it crosses the worker boundary), in fractions of
 * the image size so it does not depend on the resolution the models saw.
 */

/** x, y, width, height as fractions of the image (0..1). */
export type Box = [number, number, number, number];

export interface FaceFinding {
  box: Box;
  score: number;
  age: number | null;
  gender: 'female' | 'male' | null;
  genderScore: number;
  /** Strongest expression and its score, e.g. happy 0.89. */
  emotion: { name: string; score: number } | null;
}

export interface BodyFinding {
  box: Box;
  score: number;
  /** Keypoint names seen with confidence, e.g. leftHip, rightAnkle. */
  visibleParts: string[];
}

export interface ObjectFinding {
  label: string;
  score: number;
  box: Box;
}

/** A colour name with its share of the pixels it was measured on (0..1). */
export interface NamedColour {
  name: string;
  share: number;
}

export interface ImageStats {
  width: number;
  height: number;
  /** Mean luminance 0..1. */
  brightness: number;
  /** Standard deviation of luminance 0..1. */
  contrast: number;
  /** Mean saturation 0..1. */
  saturation: number;
  /** Mean (red − blue) −1..1: positive is warm light, negative cool. */
  warmth: number;
  palette: NamedColour[];
  /** Colours of the outer border of the frame, i.e. the background in most portraits. */
  border: { palette: NamedColour[]; brightness: number; uniformity: number };
  /** Colours of the top tenth of the frame (sky in most outdoor photos). */
  top: { palette: NamedColour[]; brightness: number };
}

export interface ImageAnalysis {
  stats: ImageStats;
  faces: FaceFinding[];
  bodies: BodyFinding[];
  objects: ObjectFinding[];
  /** Dominant colour below the main face, where clothing usually is; null when it is out of frame. */
  clothing: NamedColour[] | null;
  /** Dominant colour just above the main face, where hair usually is. */
  hair: NamedColour | null;
  timings: { decodeMs: number; detectMs: number; totalMs: number };
}

/** A point as fractions of a face's box: x from its left edge, y from its top (0..1 inside the box). */
export type BoxPoint = [number, number];

/** One detection with the evidence the photo check judges whether it is a face by (common/photo-check.ts). */
export interface FaceEvidence {
  /** The face detector's box in the whole photo (fractions of its width and height). */
  box: Box;
  /** The face detector's score. */
  score: number;
  /** The face mesh's own confidence (0..1); 0 when the mesh could not be fitted. */
  meshScore: number;
  /** Centres of the eyes, the nose tip and the mouth from the mesh; null without a mesh. */
  landmarks: { rightEye: BoxPoint; leftEye: BoxPoint; nose: BoxPoint; mouth: BoxPoint } | null;
  /** The description model's face embedding scaled to length 1; null when it gave none. */
  embedding: number[] | null;
  /** The embedding's similarity to the mean face (server/vision/mean-face.ts); null without an embedding. */
  faceness: number | null;
}

/** nsfwjs's class probabilities for one image (they sum to 1). */
export interface NsfwScores {
  drawing: number;
  hentai: number;
  neutral: number;
  porn: number;
  sexy: number;
}

/** What the photo check measures on one image; judged against common/photo-check.ts by the server. */
export interface PhotoMeasures {
  /** sharp's name of the file's format (jpeg, png, webp, heif, gif…); null when it is not an image at all. */
  format: string | null;
  /** Size as shown, EXIF rotation applied; 0 when unknown. */
  width: number;
  height: number;
  /** Why it could not be decoded, when it could not. */
  error: string | null;
  /** Null when the photo was not decoded (unreadable, unsupported or over the pixel budget). */
  decoded: {
    /** Detector findings with their evidence, tallest first. */
    faces: FaceEvidence[];
    /** Light and blur of the tallest face (see photo-measures.ts); null without a face. */
    face: { brightness: number; blur: number } | null;
    /** 64-bit difference hash as 16 hex digits. */
    hash: string;
    nsfw: NsfwScores;
    /** The same classifier with the faces masked out; measured only when the whole image looked explicit. */
    nsfwFacesMasked: NsfwScores | null;
  } | null;
}
