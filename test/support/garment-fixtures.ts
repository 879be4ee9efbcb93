/**
 * Synthetic known-answer garment data: a document of cut pieces drawn as simple garment shapes at 150 DPI, and
 * garment "photos" (a T-shirt silhouette on a studio gradient, with mild shading and deterministic noise) whose
 * print is known exactly: a 64 × 64 px block repeat of a navy disc and a red dot on cream, a placed flower motif,
 * both, or a plain colour.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Session } from '../../src/calls/session.js';
import { pixelLayer } from '../../src/engine/factory.js';
import type { DocState, Raster } from '../../src/engine/model.js';
import { allocateId, childrenOf, insertLayer } from '../../src/engine/tree.js';
import { ok } from './session.js';

const SOURCE = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex');

function keptPhoto<A extends unknown[]>(
  name: string,
  draw: (...args: A) => Promise<Buffer>,
): (...args: A) => Promise<Buffer> {
  return async (...args) => {
    const key = createHash('sha256')
      .update(JSON.stringify([SOURCE, name, args]))
      .digest('hex')
      .slice(0, 32);
    const dir = path.join(tmpdir(), 'garment-photos');
    const file = path.join(dir, `${name}-${key}.png`);
    if (existsSync(file)) return readFileSync(file);
    const drawn = await draw(...args);
    // Written whole, then renamed: another test process may be reading or drawing the same photo.
    mkdirSync(dir, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, drawn);
    renameSync(part, file);
    return drawn;
  };
}

// ---------------------------------------------------------------- the pieces

export const DOC = { width: 1320, height: 520, dpi: 150 } as const;

export type PieceKey = 'front' | 'back' | 'left' | 'right' | 'collar';

export const NAMES: Readonly<Record<'zh' | 'en' | 'none', Readonly<Record<PieceKey, string>>>> = {
  zh: { front: '前片', back: '后片', left: '左袖', right: '右袖', collar: '领' },
  en: { front: 'Front', back: 'Back', left: 'Sleeve L', right: 'Sleeve R', collar: 'Collar' },
  none: { front: '图层 3', back: '图层 1', left: '图层 5', right: '图层 2', collar: '图层 4' },
};

/** Where each piece lies (document pixels) and its shape as an inside-test in local coordinates. */
export const PIECES: Readonly<
  Record<PieceKey, { x: number; y: number; w: number; h: number; inside: (u: number, v: number) => boolean }>
> = {
  front: { x: 30, y: 30, w: 375, h: 450, inside: bodice(375, 450, 75) },
  back: { x: 430, y: 30, w: 375, h: 450, inside: bodice(375, 450, 18) },
  left: { x: 840, y: 30, w: 220, h: 170, inside: sleeve(220, 170, false) },
  right: { x: 1080, y: 30, w: 220, h: 170, inside: sleeve(220, 170, true) },
  collar: { x: 840, y: 260, w: 300, h: 40, inside: (u, v) => u >= 0 && v >= 0 && u < 300 && v < 40 },
};

/** A bodice: symmetric, with a neck scoop of depth `neck`, sloping shoulders and armholes. */
function bodice(w: number, h: number, neck: number) {
  const cx = w / 2;
  return (u: number, v: number): boolean => {
    const du = Math.abs(u + 0.5 - cx);
    const nw = 0.18 * w;
    if (du < nw && v < neck * Math.sqrt(1 - (du / nw) ** 2)) return false; // neckline
    if (v < 0.05 * h * (du / (w / 2))) return false; // shoulder slope
    const armTop = 0.35 * h;
    if (v < armTop && du > w / 2 - 0.1 * w * (1 - v / armTop) ** 0.5) return false; // armhole
    return true;
  };
}

/** A sleeve: an asymmetric trapezoid (one slanted side, a sloped cap); the right one is the mirror image. */
function sleeve(w: number, h: number, mirrored: boolean) {
  return (u0: number, v: number): boolean => {
    const u = mirrored ? w - 1 - u0 : u0;
    const right = 150 + 70 * (v / h);
    const top = 45 * (1 - u / w);
    return u <= right && v >= top;
  };
}

export function pieceRaster(key: PieceKey, grey = 220): Raster {
  const p = PIECES[key];
  const data = new Uint8ClampedArray(p.w * p.h * 4);
  for (let v = 0; v < p.h; v++) {
    for (let u = 0; u < p.w; u++) {
      if (!p.inside(u, v)) continue;
      const o = (v * p.w + u) * 4;
      data[o] = grey;
      data[o + 1] = grey;
      data[o + 2] = grey;
      data[o + 3] = 255;
    }
  }
  return { x: p.x, y: p.y, w: p.w, h: p.h, data };
}

/**
 * Piece `key` stretched `sx` wide and `sy` long (the fixture at another DPI, or a graded size), its top-left at
 * (x, y): each pixel the fixture's pixel under its centre.
 */
export function scaledPieceRaster(key: PieceKey, sx: number, sy: number, x: number, y: number): Raster {
  const p = PIECES[key];
  const w = Math.round(p.w * sx);
  const h = Math.round(p.h * sy);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let v = 0; v < h; v++) {
    for (let u = 0; u < w; u++) {
      if (p.inside(Math.floor((u + 0.5) / sx), Math.floor((v + 0.5) / sy)))
        data.set([220, 220, 220, 255], (v * w + u) * 4);
    }
  }
  return { x, y, w, h, data };
}

/**
 * A new document `size` in `session` (150 DPI) holding one pixel layer per entry, bottom first, as a marker's
 * file does; returns its state.
 */
export async function markerDocument(
  session: Session,
  size: { readonly width: number; readonly height: number },
  layers: readonly { readonly name: string; readonly raster: Raster }[],
): Promise<DocState> {
  await ok(session, 'create_document', {
    width: size.width,
    height: size.height,
    resolution: DOC.dpi,
    name: '裁片',
  });
  const tx = session.editor.begin();
  const doc = tx.activeDocument();
  let state = doc.state;
  for (const { name, raster } of layers) {
    const [id, next] = allocateId(state);
    state = insertLayer(next, pixelLayer(id, name, raster), null, childrenOf(next, null).length);
  }
  tx.update(doc.id, state);
  session.editor.commit(tx, 'fixture', true);
  return state;
}

/** Creates the pieces document in `session` (names: Chinese, English or meaningless) and returns its state. */
export function garmentDocument(session: Session, names: keyof typeof NAMES = 'zh'): Promise<DocState> {
  // Layer order deliberately not the natural one.
  const order = ['back', 'right', 'front', 'collar', 'left'] as const;
  return markerDocument(
    session,
    DOC,
    order.map((key) => ({ name: NAMES[names][key], raster: pieceRaster(key) })),
  );
}

/** One piece as a PNG the size of the document, transparent around the piece (as a marker's export per piece). */
export async function piecePng(key: PieceKey): Promise<Buffer> {
  const r = pieceRaster(key);
  const data = Buffer.alloc(DOC.width * DOC.height * 4);
  for (let y = 0; y < r.h; y++)
    data.set(r.data.subarray(y * r.w * 4, (y + 1) * r.w * 4), ((r.y + y) * DOC.width + r.x) * 4);
  return sharp(data, { raw: { width: DOC.width, height: DOC.height, channels: 4 } })
    .png()
    .toBuffer();
}

/** The pieces document built as a user does with place_image: every piece a smart object. */
export async function placedGarmentDocument(
  session: Session,
  names: keyof typeof NAMES = 'zh',
): Promise<void> {
  await ok(session, 'create_document', {
    width: DOC.width,
    height: DOC.height,
    resolution: DOC.dpi,
    name: '裁片',
  });
  for (const key of ['back', 'right', 'front', 'collar', 'left'] as const) {
    await session.workspace.writeAtomic(`piece-${key}.png`, await piecePng(key));
    await ok(session, 'place_image', { path: `piece-${key}.png`, name: NAMES[names][key] });
  }
}

// ---------------------------------------------------------------- the photos

export const PHOTO = { width: 640, height: 640 } as const;
export const TILE = 64;
export const GROUND = '#e8dcc4';
export const NAVY = '#1f3a68';
export const RED = '#c0392b';
export const THEME_GROUND = '#f0e6d2';
/** The photo's body width (300 px) maps onto the front piece's 375 px: scale 1.25, a 64 px repeat → 80 px. */
export const EXPECTED_SCALE = 375 / 300;

export type PhotoKind =
  | 'fill'
  | 'theme'
  | 'mixed'
  | 'solid'
  | 'half_drop'
  | 'star'
  | 'pale_star'
  | 'arrow'
  | 'plaid'
  | 'even_plaid'
  | 'stripes';

/** Horizontal stripes: a navy band STRIPE.band px high every STRIPE.period px, on the cream ground. */
export const STRIPE = { period: 40, band: 14 } as const;

/** The plaid's tile: three similar 28 px sub-blocks, one of them crossed by a red accent line. */
export const PLAID_TILE = 84;

/**
 * Where a plaid's tile (its column or row `s`, 0 ≤ s < PLAID_TILE) has a navy band (NAVY_BAND) and where its red
 * accent (ACCENT): flags, not an object, since the tilted photos ask 25 times a pixel.
 */
type PlaidBands = (s: number) => number;
const NAVY_BAND = 1;
const ACCENT = 2;

/** rgb's colours, kept (before their first use below). */
const channels = new Map<string, [number, number, number]>();

/** The ground darkened by 0, 1 or 2 navy bands crossing. */
const PLAID_SHADES = [0, 1, 2].map((navy) =>
  Object.freeze(
    [0, 1, 2].map((k) => Math.round(rgb(GROUND)[k]! + ((rgb(NAVY)[k]! - rgb(GROUND)[k]!) * navy) / 2)),
  ),
) as unknown as readonly [number, number, number][];

/** A plaid's colour at (x, y): red on an accent line, else the ground darkened by each navy band crossing there. */
function plaidColour(bands: PlaidBands, x: number, y: number): [number, number, number] {
  const bx = bands(((x % PLAID_TILE) + PLAID_TILE) % PLAID_TILE);
  const by = bands(((y % PLAID_TILE) + PLAID_TILE) % PLAID_TILE);
  if ((bx | by) & ACCENT) return rgb(RED);
  return PLAID_SHADES[(bx & NAVY_BAND) + (by & NAVY_BAND)]!;
}

/** A tartan-like plaid: navy bands every 28 px in both directions, a red accent line once per 84 px tile. */
export function plaidAt(x: number, y: number): [number, number, number] {
  return plaidColour(plaidBands, x, y);
}

const plaidBands: PlaidBands = (s) => (s % 28 < 12 ? NAVY_BAND : 0) | (s >= 70 && s < 74 ? ACCENT : 0);

/**
 * A plaid that is its own mirror image ('even_plaid'), as most tartans and checks are: navy bands 12 px wide
 * centred every 28 px, a red accent line through the middle band, an 84 px tile mirroring about its columns 41.5
 * and 83.5 (pixel centres at integers), and likewise across its rows.
 */
export function evenPlaidAt(x: number, y: number): [number, number, number] {
  return plaidColour(evenPlaidBands, x, y);
}

const evenPlaidBands: PlaidBands = (s) =>
  ((s + 6) % 28 >= 14 && (s + 6) % 28 < 26 ? NAVY_BAND : 0) | (s >= 40 && s < 44 ? ACCENT : 0);

/**
 * A motif that is not its own mirror image ('arrow'), on the cream ground: a dark red arrow pointing to the photo's
 * right, its shaft from x 262 to 330 (y 315–345) and its head from 330 to its tip at 378 (y 280–380), centred on the
 * garment's centre line at x 320 (the head begins 10 px right of it). A mirrored or misplaced copy shows.
 */
export const ARROW = { color: '#8e1b2b', left: 262, neck: 330, tip: 378, top: 280, bottom: 380 } as const;

export function inArrow(x: number, y: number): boolean {
  const u = x + 0.5;
  const v = y + 0.5;
  if (u >= ARROW.left && u < ARROW.neck && v >= 315 && v < 345) return true;
  if (u < ARROW.neck || u >= ARROW.tip) return false;
  const half = ((ARROW.tip - u) / (ARROW.tip - ARROW.neck)) * ((ARROW.bottom - ARROW.top) / 2);
  return Math.abs(v - 330) < half;
}

/** A light motif on a dark shirt ('star'), and a light motif on a light shirt ('pale_star'). */
export const STAR = { ground: '#b22234', motif: '#ffd23f' } as const;
export const PALE_STAR = { ground: '#f4f1ea', motif: '#f2d98a' } as const;

/** A five-pointed star (outer radius 60 px, inner 26 px) centred at (320, 330), the chest of the shirt. */
export function inStar(x: number, y: number): boolean {
  const dx = x + 0.5 - 320;
  const dy = y + 0.5 - 330;
  const r = Math.hypot(dx, dy);
  if (r > 60) return false;
  const half = Math.PI / 5;
  // Angle from the nearest point's axis (0 at a point, `half` between two points).
  const a = (Math.atan2(dx, -dy) + 2 * Math.PI) % (2 * half);
  const theta = Math.abs(a - half) === half ? 0 : half - Math.abs(a - half);
  // The edge from the point (60, 0) to the inner vertex at `half`, in the point's frame, cut by the ray at theta.
  const [ax, ay] = [60, 0];
  const [ex, ey] = [26 * Math.cos(half) - ax, 26 * Math.sin(half) - ay];
  const reach = (ax * ey - ay * ex) / (Math.cos(theta) * ey - Math.sin(theta) * ex);
  return r <= reach;
}

/** A colour's channels, frozen and kept per colour: the photos ask for a few colours millions of times. */
function rgb(hex: string): [number, number, number] {
  let c = channels.get(hex);
  if (!c) {
    const n = Number.parseInt(hex.slice(1), 16);
    c = Object.freeze([(n >> 16) & 255, (n >> 8) & 255, n & 255]) as [number, number, number];
    channels.set(hex, c);
  }
  return c;
}

/** The T-shirt silhouette: body 300 px wide (x 170..470, y 150..600), sleeves out to 60/580, a neck scoop. */
export function inShirt(x: number, y: number): boolean {
  const cx = 320;
  if (y >= 150 && y < 600 && x >= 170 && x < 470) {
    const du = Math.abs(x + 0.5 - cx);
    return !(du < 55 && y < 150 + 50 * Math.sqrt(1 - (du / 55) ** 2));
  }
  // Sleeves: from the shoulder (y 150..300 at the body) slanting out and down.
  for (const side of [-1, 1]) {
    const d = side < 0 ? 170 - x : x - 469; // distance out from the body side
    if (d < 0 || d > 110) continue;
    const top = 150 + d * 0.45;
    const bottom = 300 + d * 0.2;
    if (y >= top && y < bottom) return true;
  }
  return false;
}

/**
 * The T-shirt (inShirt) with a slit cut into each side just above the hem, 12 px deep and 14 px high: the notch a
 * folded hem's corner leaves in a product photo's silhouette, background above and below it garment.
 */
export function inSlitShirt(x: number, y: number): boolean {
  return inShirt(x, y) && !inHemSlit(x, y);
}

/** The slits of inSlitShirt. */
export function inHemSlit(x: number, y: number): boolean {
  return y >= 556 && y < 570 && ((x >= 170 && x < 182) || (x >= 458 && x < 470));
}

/** The repeat's colour at photo position x, y (block repeat, or half-drop: every other column shifted 32 px). */
function repeatAt(x: number, y: number, halfDrop: boolean): [number, number, number] {
  const col = Math.floor(x / TILE);
  const yy = halfDrop && col % 2 === 1 ? y + TILE / 2 : y;
  const u = ((x % TILE) + TILE) % TILE;
  const v = ((yy % TILE) + TILE) % TILE;
  if ((u - 20) ** 2 + (v - 20) ** 2 <= 12 ** 2) return rgb(NAVY);
  if ((u - 48) ** 2 + (v - 44) ** 2 <= 6 ** 2) return rgb(RED);
  return rgb(GROUND);
}

/** The placed motif: a dark red five-petal flower with a navy heart, centred at (320, 330); null outside it. */
export function motifAt(x: number, y: number, color = '#8e1b2b'): [number, number, number] | null {
  const dx = x - 320;
  const dy = y - 330;
  if (dx * dx + dy * dy <= 14 * 14) return rgb(NAVY);
  for (let k = 0; k < 5; k++) {
    const a = (k * 2 * Math.PI) / 5 - Math.PI / 2;
    const px = Math.cos(a) * 30;
    const py = Math.sin(a) * 30;
    if ((dx - px) ** 2 + (dy - py) ** 2 <= 22 * 22) return rgb(color);
  }
  return null;
}

/**
 * The light on the garment, a multiplicative field: 'folds' are mild (0.9..1.0, smooth in x and y); 'falloff' is
 * a studio light fading 20 % from the collar to the hem with two soft horizontal folds (12 % deep) across it,
 * one along y 330 through the placed motif's middle; 'even' is none (the print's own colours, noise only).
 */
export type PhotoLight = 'folds' | 'falloff' | 'even';

function lightAt(light: PhotoLight, x: number, y: number): number {
  if (light === 'even') return 1;
  if (light === 'folds')
    return 0.95 + 0.05 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
  const fold = (c: number) => 0.12 * Math.exp(-(((y - c) / 14) ** 2));
  return (1 - 0.2 * ((y - 150) / 450)) * (1 - fold(330) - fold(470));
}

/**
 * A deterministic garment photo as PNG bytes; `zoom` photographs the same garment with that many times more
 * pixels (a product photo's 1280 or 1920 px), every size in the photo — repeat included — `zoom` times larger.
 */
async function drawGarmentPhoto(
  kind: PhotoKind,
  zoom = 1,
  light: PhotoLight = 'folds',
  backdrop: Backdrop = 'studio',
  solid = GROUND,
  tilt = 0,
): Promise<Buffer> {
  const w = Math.round(PHOTO.width * zoom);
  const h = Math.round(PHOTO.height * zoom);
  const data = Buffer.alloc(w * h * 3);
  let seed = 12345;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 9) - 4; // −4..4
  };
  const turn = turnBack(tilt);
  const at: [number, number] = [0, 0];
  /** The colour at photo point px, py: the garment's (its print and light) or the backdrop's. */
  const colourAt = (px: number, py: number, Y: number): [number, number, number] => {
    // A garment laid `tilt` degrees askew (clockwise) on the backdrop: it and its print turn about its middle.
    const [x, y] = tilt ? turn(px, py, at) : [px, py];
    let c: readonly number[];
    if (inShirt(x, y)) {
      if (kind === 'solid') c = rgb(solid);
      else if (kind === 'theme') c = motifAt(x, y) ?? rgb(THEME_GROUND);
      else if (kind === 'mixed') c = motifAt(x, y, '#2e7d32') ?? repeatAt(x, y, false);
      else if (kind === 'plaid') c = plaidAt(x, y);
      else if (kind === 'even_plaid') c = evenPlaidAt(x, y);
      else if (kind === 'stripes') c = rgb(y % STRIPE.period < STRIPE.band ? NAVY : GROUND);
      else if (kind === 'star') c = rgb(inStar(x, y) ? STAR.motif : STAR.ground);
      else if (kind === 'pale_star') c = rgb(inStar(x, y) ? PALE_STAR.motif : PALE_STAR.ground);
      else if (kind === 'arrow') c = rgb(inArrow(x, y) ? ARROW.color : THEME_GROUND);
      else c = repeatAt(x, y, kind === 'half_drop');
      const shade = lightAt(light, x, y);
      return [c[0]! * shade, c[1]! * shade, c[2]! * shade];
    }
    if (backdrop === 'studio') {
      const g = 122 + Math.round((Y / h) * 18);
      return [g, g + 6, g + 14];
    }
    return backdropAt(backdrop, px, py);
  };
  // A garment laid askew has edges across the pixel grid, which a camera sees blurred: 5 × 5 samples a pixel
  // (without them a turned stripe is a staircase no photo shows).
  const subs = tilt ? [-0.4, -0.2, 0, 0.2, 0.4] : [0];
  for (let Y = 0; Y < h; Y++) {
    for (let X = 0; X < w; X++) {
      const c = [0, 0, 0];
      for (const sy of subs) {
        for (const sx of subs) {
          const [px, py] =
            zoom === 1 ? [X + sx, Y + sy] : [(X + sx + 0.5) / zoom - 0.5, (Y + sy + 0.5) / zoom - 0.5];
          const v = colourAt(px, py, Y);
          for (let k = 0; k < 3; k++) c[k]! += v[k]! / subs.length ** 2;
        }
      }
      const o = (Y * w + X) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The garment's point that a turn of `deg` degrees clockwise about the shirt's middle (320, 375) brings to x, y,
 * written into `out` (the tilted photos ask 25 times a pixel).
 */
function turnBack(deg: number): (x: number, y: number, out: [number, number]) => [number, number] {
  const a = (-deg * Math.PI) / 180;
  const [cos, sin] = [Math.cos(a), Math.sin(a)];
  return (x, y, out) => {
    const dx = x - 320;
    const dy = y - 375;
    out[0] = 320 + dx * cos - dy * sin;
    out[1] = 375 + dx * sin + dy * cos;
    return out;
  };
}

/**
 * What the garment lies on: a studio sweep (a grey gradient), or a patterned surface a flat lay is often shot
 * on — wooden floor planks, a gingham tablecloth, a speckled carpet.
 */
export type Backdrop = 'studio' | 'wood' | 'gingham' | 'carpet';

/** Deterministic hash noise in −1..1 for integer cell (i, j). */
function cellNoise(i: number, j: number, salt: number): number {
  let v = (Math.imul(i, 73856093) ^ Math.imul(j, 19349663) ^ Math.imul(salt, 83492791)) >>> 0;
  v = Math.imul(v ^ (v >>> 13), 1274126177) >>> 0;
  return ((v ^ (v >>> 16)) % 2001) / 1000 - 1;
}

/** The patterned backdrop's colour at photo position x, y. */
export function backdropAt(
  backdrop: Exclude<Backdrop, 'studio'>,
  x: number,
  y: number,
): [number, number, number] {
  if (backdrop === 'wood') {
    // Planks 46 px high with dark joints, each its own shade, grain streaks along them.
    const plank = Math.floor(y / 46);
    if (y - plank * 46 < 2) return [92, 62, 38];
    const shade = 1 + 0.08 * cellNoise(plank, 0, 1);
    const grain = 0.06 * Math.sin(x / 9 + 3 * cellNoise(plank, 1, 2) + Math.sin(y / 5) * 1.5);
    const k = shade * (1 + grain);
    return [Math.round(158 * k), Math.round(112 * k), Math.round(72 * k)];
  }
  if (backdrop === 'gingham') {
    // 24 px checks: white, red-tinted where one band crosses, deep red where both do.
    const bands = Number(Math.floor(x / 24) % 2 === 0) + Number(Math.floor(y / 24) % 2 === 0);
    return bands === 0 ? [248, 246, 242] : bands === 1 ? [226, 140, 136] : [196, 44, 52];
  }
  // Carpet: grey loops, 3 px cells of random lightness, some darker flecks.
  const v = cellNoise(Math.floor(x / 3), Math.floor(y / 3), 3);
  const fleck = cellNoise(Math.floor(x / 5), Math.floor(y / 5), 4) > 0.85 ? -40 : 0;
  const g = Math.round(118 + 26 * v + fleck);
  return [g, g - 2, g - 6];
}

export interface PlainPhoto {
  /** The garment's colour and the studio background's. */
  readonly ground: string;
  readonly background: string;
  /** Through the neck opening (enclosed by the back neck band): the background, or the inside of the back. */
  readonly neck: 'background' | 'inside';
  /** Depth of the fold and armhole shadows: the darkest is `1 − shadow` times the ground. */
  readonly shadow: number;
  /** A crisp star of this colour on the chest (then the photo is not plain: a guard for what is print). */
  readonly star?: string;
}

/** The T-shirt with a back neck band across the top of the neck scoop (y 140..150), so the opening is a hole. */
function inBandedShirt(x: number, y: number): boolean {
  if (inShirt(x, y)) return true;
  return y >= 140 && y < 150 && Math.abs(x + 0.5 - 320) < 60;
}

/** In the neck opening: below the back band, inside the front neckline. */
function inNeckOpening(x: number, y: number): boolean {
  return y >= 150 && y < 200 && Math.abs(x + 0.5 - 320) < 55 && !inShirt(x, y);
}

/**
 * A plain-colour T-shirt photographed flat: soft fold shadows (two vertical folds, shadows along the armholes
 * and under the sleeves) and a neck opening showing the background or the inside of the back, on a studio
 * background with a slight gradient; deterministic noise. Nothing on it is a motif.
 */
async function drawPlainGarmentPhoto(p: PlainPhoto): Promise<Buffer> {
  const { width: w, height: h } = PHOTO;
  const data = Buffer.alloc(w * h * 3);
  let seed = 777;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 7) - 3;
  };
  const ground = rgb(p.ground);
  const back = rgb(p.background);
  const bump = (d: number, width: number) => Math.exp(-((d / width) ** 2));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let c: number[];
      const studio = 1 - 0.04 * (y / h);
      if (inNeckOpening(x, y)) {
        // The inside of the back, in the shadow of the front: darker towards the band.
        c =
          p.neck === 'background'
            ? back.map((v) => v * studio)
            : ground.map((v) => v * (0.72 + 0.1 * ((y - 150) / 50)));
      } else if (inBandedShirt(x, y)) {
        const fold =
          Math.max(bump(x - 250, 14) * 0.9, bump(x - 395, 10) * 0.7) * (y > 200 ? 1 : (y - 150) / 50);
        const armhole = Math.max(bump(x - 178, 9), bump(x - 461, 9)) * (y > 150 && y < 320 ? 1 : 0);
        const underSleeve =
          bump(y - (300 + Math.max(0, 170 - x, x - 469) * 0.2), 8) * (x < 175 || x > 465 ? 1 : 0);
        const dark = Math.min(1, Math.max(fold, armhole, underSleeve));
        const shade = (1 - p.shadow * dark) * (0.97 + 0.03 * Math.cos((2 * Math.PI * y) / 510));
        c = (p.star && inStar(x, y) ? rgb(p.star) : ground).map((v) => v * shade);
      } else {
        c = back.map((v) => v * studio);
      }
      const o = (y * w + x) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

export interface LightPhoto {
  /** The print's ground colour (white, cream) and the studio background's (white, light grey). */
  readonly ground: string;
  readonly background: string;
  /** 'dots': small red dots every 64 px; 'flowers': pink five-petal flowers with a green leaf every 80 px. */
  readonly print: 'dots' | 'flowers';
  /** A soft shadow the garment casts on the background (product photos have one, or not). */
  readonly castShadow: boolean;
}

/** The light-ground prints' periods in the photo, px. */
export const LIGHT_PERIOD = { dots: 64, flowers: 80 } as const;

function lightPrintAt(print: LightPhoto['print'], x: number, y: number): [number, number, number] | null {
  if (print === 'dots') {
    const u = ((x % 64) + 64) % 64;
    const v = ((y % 64) + 64) % 64;
    if ((u - 16) ** 2 + (v - 16) ** 2 <= 5 ** 2) return rgb('#d0312d');
    if ((u - 48) ** 2 + (v - 48) ** 2 <= 5 ** 2) return rgb('#d0312d');
    return null;
  }
  const u = ((x % 80) + 80) % 80;
  const v = ((y % 80) + 80) % 80;
  const dx = u - 30;
  const dy = v - 30;
  if (dx * dx + dy * dy <= 4 * 4) return rgb('#f2b632');
  for (let k = 0; k < 5; k++) {
    const a = (k * 2 * Math.PI) / 5;
    if ((dx - Math.cos(a) * 9) ** 2 + (dy - Math.sin(a) * 9) ** 2 <= 7 * 7) return rgb('#e0709a');
  }
  // A leaf: an ellipse down and to the right of the flower.
  const lx = u - 58;
  const ly = v - 56;
  if ((lx * 0.8 + ly * 0.6) ** 2 / 100 + (-lx * 0.6 + ly * 0.8) ** 2 / 16 <= 1) return rgb('#4f8a3c');
  return null;
}

/**
 * Each inside pixel's distance to the nearest outside one, up to 6 px (7 beyond), into `out`: where the fabric
 * turns away at the garment's edge.
 */
function distanceToOutline<T extends Float32Array | Float64Array>(
  out: T,
  inside: Uint8Array,
  w: number,
  h: number,
): T {
  out.fill(7);
  // Outside px (the frame's border counting as outside) summed over rows and columns, so that a px with none in
  // its 13 × 13 window is passed at once: the nearest outside px is then searched only along the outline.
  const W = w + 14;
  const sums = new Int32Array((w + 15) * (h + 15));
  for (let Y = 0; Y < h + 14; Y++) {
    for (let X = 0; X < W; X++) {
      const x = X - 7;
      const y = Y - 7;
      const out = x < 0 || y < 0 || x >= w || y >= h || !inside[y * w + x] ? 1 : 0;
      sums[(Y + 1) * (W + 1) + X + 1] =
        out + sums[Y * (W + 1) + X + 1]! + sums[(Y + 1) * (W + 1) + X]! - sums[Y * (W + 1) + X]!;
    }
  }
  const outsideAround = (x: number, y: number) => {
    const [x0, y0, x1, y1] = [x + 1, y + 1, x + 14, y + 14];
    return (
      sums[y1 * (W + 1) + x1]! -
      sums[y0 * (W + 1) + x1]! -
      sums[y1 * (W + 1) + x0]! +
      sums[y0 * (W + 1) + x0]!
    );
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!inside[y * w + x] || !outsideAround(x, y)) continue;
      for (const [i, j, d] of NEAREST_FIRST) {
        const X = x + i;
        const Y = y + j;
        if (X >= 0 && Y >= 0 && X < w && Y < h && inside[Y * w + X]) continue;
        out[y * w + x] = Math.min(out[y * w + x]!, d);
        break;
      }
    }
  }
  return out;
}

/** The offsets of a 13 × 13 window with their lengths, nearest first. */
const NEAREST_FIRST: readonly (readonly [number, number, number])[] = Array.from({ length: 169 }, (_, k) => {
  const [i, j] = [(k % 13) - 6, Math.floor(k / 13) - 6];
  return [i, j, Math.hypot(i, j)] as const;
}).sort((p, q) => p[2] - q[2]);

/**
 * A light-ground print (white or cream with small red dots or small flowers) on the T-shirt, photographed on a
 * white or light-grey studio background: the ground is within a few ΔE of the background, so the garment shows
 * only by its shading — fabric turning away along the outline (up to 7 % darker), mild folds — and, when
 * `castShadow`, a soft shadow on the background. The print's period in the photo is LIGHT_PERIOD.
 */
async function drawLightGroundPhoto(p: LightPhoto): Promise<Buffer> {
  const { width: w, height: h } = PHOTO;
  const inside = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) inside[y * w + x] = inShirt(x, y) ? 1 : 0;
  // Distance to the outline (≤ 6 px), for the fabric turning away at its edge.
  const near = distanceToOutline(new Float64Array(w * h), inside, w, h);
  // The cast shadow: the silhouette moved by (5, 7) px, box-blurred over 13 px.
  const shadow = new Float64Array(w * h);
  if (p.castShadow) {
    const r = 6;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let c = 0;
        for (let j = -r; j <= r; j += 2) {
          for (let i = -r; i <= r; i += 2) {
            const X = x - 5 + i;
            const Y = y - 7 + j;
            if (X >= 0 && Y >= 0 && X < w && Y < h) c += inside[Y * w + X]!;
          }
        }
        shadow[y * w + x] = c / 49;
      }
    }
  }
  const data = Buffer.alloc(w * h * 3);
  let seed = 4242;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 7) - 3;
  };
  const ground = rgb(p.ground);
  const back = rgb(p.background);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      let c: number[];
      if (inside[i]) {
        const turn = 1 - 0.07 * Math.max(0, 1 - near[i]! / 6);
        const fold = 0.97 + 0.03 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        c = (lightPrintAt(p.print, x, y) ?? ground).map((v) => v * turn * fold);
      } else {
        c = back.map((v) => v * (1 - 0.1 * shadow[i]!) * (1 - 0.015 * (y / h)));
      }
      const o = i * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

/** Writes the photo into the session's workspace and marks it as the garment photo. */
export async function usePhoto(
  session: Session,
  kind: PhotoKind,
  file = `photo-${kind}.png`,
): Promise<string> {
  await session.workspace.writeAtomic(file, await garmentPhoto(kind));
  await ok(session, 'set_garment_photo', { path: file });
  return file;
}

// ---------------------------------------------------------------- photos as they come

/**
 * How a product photo departs from the clean flat lay: taken not quite from above (`keystone`: the hem that
 * share wider than the shoulders, the lines between narrowing towards the top), the garment on a `hanger` (a
 * dark wire hook and arms above the shoulders), a soft `castShadow` on the background to the right and below,
 * and a `vignette` (the corners that share darker). `zoom` renders the same photo with that many times more
 * pixels.
 */
export interface ProductPhotoOptions {
  readonly zoom?: number;
  readonly keystone?: number;
  readonly hanger?: boolean;
  /**
   * The garment's shadow on the background: true, moved (18, 12) px and blurred over 25 px, 18 % deep; 'below', as
   * a light from the front and above casts it on a product photo's sweep, moved 14 px down, blurred over 29 px and
   * 35 % deep, so that it spreads below the hem (see `foot`).
   */
  readonly castShadow?: boolean | 'below';
  readonly vignette?: number;
  /** Rows of background added below the photo (garment units): room for a shadow below the hem. */
  readonly foot?: number;
  /** A plain ('solid') garment's colour, GROUND by default. */
  readonly colour?: string;
  /** A plain background of this colour (top; 2 % darker at the foot) in place of the studio sweep. */
  readonly sweep?: string;
  /**
   * The sweep lit in a round glow beside the garment, as mockups are: `strength` of the way to white at `at` (a
   * share of the photo's width and height), fading out over `radius` (a share of its diagonal).
   */
  readonly glow?: {
    readonly strength: number;
    readonly at: readonly [number, number];
    readonly radius: number;
  };
  /** White lettering across the chest (CHEST_LETTERING) and a white brand label below the neckline (NECK_LABEL). */
  readonly lettering?: boolean;
  /**
   * The garment cut out and put on a flat `sweep`, as web shops' product photos on pure white are: the background
   * exactly that colour (no noise, no darkening at the foot; a cast shadow still darkens it), the fabric keeping
   * its noise.
   */
  readonly cutout?: boolean;
  /**
   * The garment lit from its right: `strength` of the way to white at its right sleeve's tip, rising from nothing
   * at its middle (a white shirt's lit side then fades into a white background, as on many product photos).
   */
  readonly litFromRight?: number;
  /** The body's sides slit above the hem (inSlitShirt). */
  readonly hemSlits?: boolean;
}

/**
 * The chest's lettering as e-commerce T-shirts carry it: ten block letters, strokes 2 px, in a line (garment
 * units): a motif of many small parts, 0.6 % of the shirt, under the 1 % that once made a motif.
 */
export const CHEST_LETTERING = { x: 230, y: 250, w: 178, h: 18 } as const;
/** A printed brand label just below the neckline: one solid patch, larger than any letter, smaller than them all. */
export const NECK_LABEL = { x: 302, y: 206, w: 36, h: 12 } as const;

/** Whether garment point (x, y) is on the chest's lettering (an E-like glyph each 18 px: stem and three bars). */
function onLettering(x: number, y: number): boolean {
  const { x: x0, y: y0, w, h } = CHEST_LETTERING;
  if (x < x0 || x >= x0 + w || y < y0 || y >= y0 + h) return false;
  const u = (x - x0) % 18;
  const v = y - y0;
  if (u >= 12) return false;
  return u < 2 || v < 2 || v >= h - 2 || (v >= 8 && v < 10 && u < 9);
}

function onNeckLabel(x: number, y: number): boolean {
  const l = NECK_LABEL;
  return x >= l.x && x < l.x + l.w && y >= l.y && y < l.y + l.h;
}

/** A light-ground print (LIGHT_PERIOD) on a near-white shirt, on a light grey studio background. */
export const LIGHT_PRODUCT = { ground: '#fbfbf9', background: '#ececea' } as const;
/** The hanger's colour: dark lacquered wood. */
export const HANGER = '#2a211c';

/** On the hanger: a hook (a wire arc) over a stem and two arms sloping down to the shoulders. */
export function onHanger(x: number, y: number): boolean {
  const r = Math.hypot(x - 320, y - 92);
  // The hook: a 4 px wire on a 20 px radius, open at the lower left.
  if (Math.abs(r - 20) <= 2 && !(x < 320 && y > 92)) return true;
  if (Math.abs(x + 0.5 - 320) <= 2 && y >= 92 && y < 122) return true;
  // The arms: 7 px thick, from (320, 120) to the shoulders at (180, 147) and (460, 147).
  const d = Math.abs(x + 0.5 - 320);
  if (d > 140) return false;
  const mid = 120 + (27 * d) / 140;
  return Math.abs(y - mid) <= 3.5;
}

/**
 * A garment photo as designers' photos come (see ProductPhotoOptions): the fixture's T-shirt with the print of
 * `kind` ('dots' and 'flowers': the light-ground prints on LIGHT_PRODUCT's near-white shirt and light background;
 * the others as garmentPhoto draws them, with its mild folds, on its studio sweep), its edge turning away
 * (darker over its last 6 px), deterministic noise. In the garment's own coordinates its body is 300 px wide
 * (at the shoulders, where a keystone leaves the width as it is).
 */
async function drawProductPhoto(
  kind: PhotoKind | 'dots' | 'flowers',
  o: ProductPhotoOptions = {},
): Promise<Buffer> {
  const zoom = o.zoom ?? 1;
  const keystone = o.keystone ?? 0;
  const w = Math.round(PHOTO.width * zoom);
  const h = Math.round((PHOTO.height + (o.foot ?? 0)) * zoom);
  const light = kind === 'dots' || kind === 'flowers';
  // Distance to the outline (≤ 6 px) on the garment's own 640 px grid, for the fabric turning away at its edge.
  const G = PHOTO.width;
  const shape = o.hemSlits ? inSlitShirt : inShirt;
  const inside = new Uint8Array(G * G);
  for (let y = 0; y < G; y++) for (let x = 0; x < G; x++) inside[y * G + x] = shape(x, y) ? 1 : 0;
  const near = distanceToOutline(new Float32Array(G * G), inside, G, G);
  /** The garment point under photo point (px, py) (640 px units): the keystone narrows rows above the hem. */
  const toGarment = (px: number, py: number): [number, number] => {
    const s = 1 + keystone * Math.max(0, Math.min(1, (py - 150) / 450));
    return [320 + (px + 0.5 - 320) / s - 0.5, py];
  };
  // What lies on the garment or over it, per photo pixel (0 background, 1 garment, 2 hanger), and the shadow.
  const what = new Uint8Array(w * h);
  const at = (X: number, Y: number): [number, number] =>
    toGarment((X + 0.5) / zoom - 0.5, (Y + 0.5) / zoom - 0.5);
  for (let Y = 0; Y < h; Y++) {
    for (let X = 0; X < w; X++) {
      const [x, y] = at(X, Y);
      what[Y * w + X] = shape(Math.floor(x + 0.5), Math.floor(y + 0.5))
        ? 1
        : o.hanger && onHanger(x, y)
          ? 2
          : 0;
    }
  }
  // The cast shadow: what lies on the background, moved, box-blurred and darkened (castShadow).
  const shadow = new Float32Array(w * h);
  if (o.castShadow) {
    const below = o.castShadow === 'below';
    const r = Math.round((below ? 14 : 12) * zoom);
    const dx = Math.round((below ? 0 : 18) * zoom);
    const dy = Math.round((below ? 14 : 12) * zoom);
    const depth = below ? 0.35 : 0.18;
    const rows = new Float32Array(w * h);
    for (let Y = 0; Y < h; Y++) {
      let s = 0;
      const val = (X: number) =>
        X - dx >= 0 && X - dx < w && Y - dy >= 0 && Y - dy < h && what[(Y - dy) * w + X - dx] ? 1 : 0;
      for (let X = -r; X <= r; X++) s += val(X);
      for (let X = 0; X < w; X++) {
        rows[Y * w + X] = s;
        s += val(X + r + 1) - val(X - r);
      }
    }
    for (let X = 0; X < w; X++) {
      let s = 0;
      const val = (Y: number) => (Y >= 0 && Y < h ? rows[Y * w + X]! : 0);
      for (let Y = -r; Y <= r; Y++) s += val(Y);
      for (let Y = 0; Y < h; Y++) {
        shadow[Y * w + X] = (depth * s) / (2 * r + 1) ** 2;
        s += val(Y + r + 1) - val(Y - r);
      }
    }
  }
  const data = Buffer.alloc(w * h * 3);
  let seed = 9090;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 7) - 3;
  };
  const ground = rgb(light ? LIGHT_PRODUCT.ground : (o.colour ?? GROUND));
  const back = rgb(o.sweep ?? LIGHT_PRODUCT.background);
  const hanger = rgb(HANGER);
  const corner = Math.hypot(w / 2, h / 2);
  const mixed = [0, 0, 0];
  for (let Y = 0; Y < h; Y++) {
    for (let X = 0; X < w; X++) {
      const i = Y * w + X;
      const [x, y] = at(X, Y);
      let c: readonly number[];
      if (what[i] === 1) {
        const gx = Math.floor(x + 0.5);
        const gy = Math.floor(y + 0.5);
        let p: readonly number[];
        if (light) p = lightPrintAt(kind, x, y) ?? ground;
        else if (o.lettering && (onLettering(gx, gy) || onNeckLabel(gx, gy))) p = [250, 250, 250];
        else if (kind === 'solid') p = ground;
        else if (kind === 'theme') p = motifAt(x, y) ?? rgb(THEME_GROUND);
        else if (kind === 'mixed') p = motifAt(x, y, '#2e7d32') ?? repeatAt(x, y, false);
        else if (kind === 'plaid') p = plaidAt(x, y);
        else if (kind === 'stripes') p = rgb(y % STRIPE.period < STRIPE.band ? NAVY : GROUND);
        else if (kind === 'star') p = rgb(inStar(x, y) ? STAR.motif : STAR.ground);
        else if (kind === 'pale_star') p = rgb(inStar(x, y) ? PALE_STAR.motif : PALE_STAR.ground);
        else if (kind === 'arrow') p = rgb(inArrow(x, y) ? ARROW.color : THEME_GROUND);
        else p = repeatAt(x, y, kind === 'half_drop');
        const turn = 1 - 0.07 * Math.max(0, 1 - near[gy * G + gx]! / 6);
        const fold = 0.97 + 0.03 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        const lit = (o.litFromRight ?? 0) * Math.min(1, Math.max(0, (x - 320) / 240)) ** 1.5;
        for (let k = 0; k < 3; k++) {
          const v = p[k]! * turn * fold;
          mixed[k] = v + (255 - v) * lit;
        }
        c = mixed;
      } else if (what[i] === 2) c = hanger;
      else if (light || o.sweep) {
        const g = o.glow;
        const lit = g
          ? g.strength *
            Math.max(
              0,
              1 - Math.hypot(X + 0.5 - g.at[0] * w, Y + 0.5 - g.at[1] * h) / (2 * g.radius * corner),
            ) **
              2
          : 0;
        const foot = o.cutout ? 1 : 1 - 0.015 * (Y / h);
        c = back.map((v) => (v + (255 - v) * lit) * (1 - shadow[i]!) * foot);
      } else {
        const g = 122 + Math.round((Y / h) * 18);
        c = [g, g + 6, g + 14].map((v) => v * (1 - shadow[i]!));
      }
      const v = 1 - (o.vignette ?? 0) * (Math.hypot(X + 0.5 - w / 2, Y + 0.5 - h / 2) / corner) ** 2;
      const grain = !(o.cutout && what[i] === 0);
      for (let k = 0; k < 3; k++)
        data[i * 3 + k] = Math.max(0, Math.min(255, Math.round(c[k]! * v) + (grain ? noise() : 0)));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

// ---------------------------------------------------------------- a fabric swatch photographed askew

/**
 * A fabric swatch photographed `tilt` degrees askew (clockwise): the whole photo is fabric (the print runs on
 * past the frame, as a swatch cropped inside its turned edges), `side` px square, `print` as garmentPhoto draws
 * it ('fill': the 64 px block repeat, 'stripes', 'plaid'), under mild folds, 5 × 5 samples a pixel (a camera's
 * blur across the turned edges) and deterministic noise. Turned about the photo's middle.
 */
async function drawTiltedSwatchPhoto(
  print: 'fill' | 'stripes' | 'plaid',
  tilt: number,
  side = 480,
): Promise<Buffer> {
  const data = Buffer.alloc(side * side * 3);
  let seed = 31337;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 7) - 3;
  };
  const a = (-tilt * Math.PI) / 180;
  const [cos, sin] = [Math.cos(a), Math.sin(a)];
  const m = side / 2;
  const subs = [-0.4, -0.2, 0, 0.2, 0.4];
  for (let Y = 0; Y < side; Y++) {
    for (let X = 0; X < side; X++) {
      const c = [0, 0, 0];
      for (const sy of subs) {
        for (const sx of subs) {
          // The fabric's point under the photo's (turned back about the middle).
          const dx = X + sx - m;
          const dy = Y + sy - m;
          const x = m + dx * cos - dy * sin + 1000;
          const y = m + dx * sin + dy * cos + 1000;
          const p =
            print === 'plaid'
              ? plaidAt(x, y)
              : print === 'stripes'
                ? rgb(y % STRIPE.period < STRIPE.band ? NAVY : GROUND)
                : repeatAt(x, y, false);
          const shade = 0.96 + 0.04 * Math.cos((2 * Math.PI * X) / 700) * Math.cos((2 * Math.PI * Y) / 610);
          for (let k = 0; k < 3; k++) c[k]! += (p[k]! * shade) / subs.length ** 2;
        }
      }
      const o = (Y * side + X) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

// ---------------------------------------------------------------- a garment laid askew, its print at any size

/**
 * garmentPhoto's T-shirt (its mild folds, on its studio sweep) laid `tilt` degrees askew (clockwise, about its
 * middle), its print drawn `repeat` px a repeat: 'fill' the block repeat of a navy disc and a red dot (TILE),
 * 'stripes' (STRIPE), 'plaid' (PLAID_TILE), each scaled from its own period. 5 × 5 samples a pixel (a camera's
 * blur across the turned edges) and deterministic noise, as garmentPhoto's.
 */
async function drawTiltedPrintPhoto(
  print: 'fill' | 'stripes' | 'plaid',
  tilt: number,
  repeat: number,
): Promise<Buffer> {
  const { width: w, height: h } = PHOTO;
  const s = (print === 'fill' ? TILE : print === 'stripes' ? STRIPE.period : PLAID_TILE) / repeat;
  const data = Buffer.alloc(w * h * 3);
  let seed = 2718;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 9) - 4;
  };
  const subs = [-0.4, -0.2, 0, 0.2, 0.4];
  const turn = turnBack(tilt);
  const at: [number, number] = [0, 0];
  for (let Y = 0; Y < h; Y++) {
    for (let X = 0; X < w; X++) {
      const c = [0, 0, 0];
      for (const sy of subs) {
        for (const sx of subs) {
          const [x, y] = turn(X + sx, Y + sy, at);
          let v: readonly number[];
          if (inShirt(x, y)) {
            // The print about the shirt's middle, so every size lies alike on it.
            const [u, t] = [320 + (x - 320) * s, 375 + (y - 375) * s];
            const p =
              print === 'plaid'
                ? plaidAt(u, t)
                : print === 'stripes'
                  ? rgb(((t % STRIPE.period) + STRIPE.period) % STRIPE.period < STRIPE.band ? NAVY : GROUND)
                  : repeatAt(u, t, false);
            const shade = lightAt('folds', x, y);
            v = p.map((k) => k * shade);
          } else {
            const g = 122 + Math.round((Y / h) * 18);
            v = [g, g + 6, g + 14];
          }
          for (let k = 0; k < 3; k++) c[k]! += v[k]! / subs.length ** 2;
        }
      }
      const o = (Y * w + X) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

// ---------------------------------------------------------------- a light-ground photo at a product photo's size

/**
 * lightGroundPhoto's T-shirt (its light-ground print, its edge turning away, its mild folds and, when
 * `castShadow`, its soft shadow on the background) photographed with `zoom` times as many pixels: every size in
 * the photo (the repeat, the edge's shading, the shadow) `zoom` times larger, the noise per pixel as it is.
 */
async function drawZoomedLightGroundPhoto(p: LightPhoto, zoom: number): Promise<Buffer> {
  const G = PHOTO.width;
  const inside = new Uint8Array(G * G);
  for (let y = 0; y < G; y++) for (let x = 0; x < G; x++) inside[y * G + x] = inShirt(x, y) ? 1 : 0;
  // On the garment's own 640 px grid, as lightGroundPhoto: the distance to the outline (≤ 6 px), the shadow.
  const near = distanceToOutline(new Float32Array(G * G), inside, G, G);
  const shadow = new Float32Array(G * G);
  if (p.castShadow) {
    for (let y = 0; y < G; y++) {
      for (let x = 0; x < G; x++) {
        let c = 0;
        for (let j = -6; j <= 6; j += 2) {
          for (let i = -6; i <= 6; i += 2) {
            const X = x - 5 + i;
            const Y = y - 7 + j;
            if (X >= 0 && Y >= 0 && X < G && Y < G) c += inside[Y * G + X]!;
          }
        }
        shadow[y * G + x] = c / 49;
      }
    }
  }
  const w = Math.round(G * zoom);
  const data = Buffer.alloc(w * w * 3);
  let seed = 4242;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return ((seed >> 8) % 7) - 3;
  };
  const ground = rgb(p.ground);
  const back = rgb(p.background);
  /** Bilinear on the 640 px grid (the shadow is smooth). */
  const lerp = (f: Float32Array, x: number, y: number) => {
    const x0 = Math.max(0, Math.min(G - 2, Math.floor(x)));
    const y0 = Math.max(0, Math.min(G - 2, Math.floor(y)));
    const fx = Math.max(0, Math.min(1, x - x0));
    const fy = Math.max(0, Math.min(1, y - y0));
    const at = (i: number, j: number) => f[(y0 + j) * G + x0 + i]!;
    return (at(0, 0) * (1 - fx) + at(1, 0) * fx) * (1 - fy) + (at(0, 1) * (1 - fx) + at(1, 1) * fx) * fy;
  };
  for (let Y = 0; Y < w; Y++) {
    for (let X = 0; X < w; X++) {
      const x = (X + 0.5) / zoom - 0.5;
      const y = (Y + 0.5) / zoom - 0.5;
      const gx = Math.min(G - 1, Math.max(0, Math.floor(x + 0.5)));
      const gy = Math.min(G - 1, Math.max(0, Math.floor(y + 0.5)));
      let c: number[];
      if (inside[gy * G + gx]) {
        const turn = 1 - 0.07 * Math.max(0, 1 - near[gy * G + gx]! / 6);
        const fold = 0.97 + 0.03 * Math.cos((2 * Math.PI * x) / 420) * Math.cos((2 * Math.PI * y) / 510);
        c = (lightPrintAt(p.print, x, y) ?? ground).map((v) => v * turn * fold);
      } else {
        c = back.map((v) => v * (1 - 0.1 * lerp(shadow, x, y)) * (1 - 0.015 * (y / G)));
      }
      const o = (Y * w + X) * 3;
      for (let k = 0; k < 3; k++) data[o + k] = Math.max(0, Math.min(255, Math.round(c[k]!) + noise()));
    }
  }
  return sharp(data, { raw: { width: w, height: w, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The photos above, each drawn once per test run: the same photo is asked for by many test files, each in a
 * process of its own (the garment tests run isolated), and drawing one pixel by pixel took seconds — about a
 * seventh of the garment tests' time. Kept as the PNG drawn, under the run's scratch folder (scratch-tmpdir.ts),
 * named by the generator, its arguments and this file's text, so a changed generator draws again.
 */
export const garmentPhoto = keptPhoto('garmentPhoto', drawGarmentPhoto);
export const plainGarmentPhoto = keptPhoto('plainGarmentPhoto', drawPlainGarmentPhoto);
export const lightGroundPhoto = keptPhoto('lightGroundPhoto', drawLightGroundPhoto);
export const productPhoto = keptPhoto('productPhoto', drawProductPhoto);
export const tiltedSwatchPhoto = keptPhoto('tiltedSwatchPhoto', drawTiltedSwatchPhoto);
export const tiltedPrintPhoto = keptPhoto('tiltedPrintPhoto', drawTiltedPrintPhoto);
export const zoomedLightGroundPhoto = keptPhoto('zoomedLightGroundPhoto', drawZoomedLightGroundPhoto);
