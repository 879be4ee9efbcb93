/**
 * Which layers are cut pieces, their geometry, and which garment part each one is. Evidence in order of
 * strength (research/garment.md §2.2): the layer name (Chinese and English keywords); copies of one cut piece
 * (the same outline as drafted or mirrored — a copy of a named layer is that part, and the copies are paired
 * for mirrored prints); then a garment template over the distinct pieces (trouser legs, full panels and halves,
 * sleeves, bands, small pieces) from shape features (area, elongation, fill, symmetry, neckline depth).
 * Measured on real FreeSewing pieces by test/garment/freesewing.test.ts.
 */
import type { DocState, PixelLayer, SmartLayer } from '../../engine/model.js';
import { alphaBounds, isEmptyRect } from '../../engine/raster.js';
import { isShown, topDown } from '../../engine/tree.js';
import { maskBounds } from '../image.js';
import type { DecidedBy, Part, PieceInfo, PieceShape } from '../types.js';

/**
 * Layers that are pieces: pixel layers and smart objects (a piece placed with place_image is one; its rendered
 * raster is its shape), visible, not the background, not clipped (fills are), with real transparency.
 */
export function collectPieces(state: DocState): PieceShape[] {
  const out: PieceShape[] = [];
  for (const { layer } of topDown(state)) {
    if (!isPieceKind(layer)) continue;
    if ((layer.kind === 'pixel' && layer.background) || layer.clipped) continue;
    if (!isShown(state, layer.id)) continue;
    const shape = measure(layer);
    if (!shape) continue;
    // A layer covering (almost) the whole canvas is a backdrop, not a piece.
    if (shape.area >= state.width * state.height * 0.9) continue;
    out.push(shape);
  }
  return out.reverse(); // bottom → top, stable
}

export type PieceLayer = PixelLayer | SmartLayer;

export function isPieceKind(layer: { kind: string }): layer is PieceLayer {
  return layer.kind === 'pixel' || layer.kind === 'smart';
}

export function measure(layer: PieceLayer): PieceShape | null {
  const r = layer.raster;
  const b = alphaBounds(r);
  if (isEmptyRect(b)) return null;
  const mask = new Uint8Array(b.w * b.h);
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < b.h; y++) {
    for (let x = 0; x < b.w; x++) {
      const a = r.data[((b.y - r.y + y) * r.w + (b.x - r.x + x)) * 4 + 3]!;
      if (a >= 128) {
        mask[y * b.w + x] = 1;
        area++;
        sx += x;
        sy += y;
      }
    }
  }
  if (area < 16) return null;
  // Not empty: at least 16 pixels are set.
  const inner = maskBounds(mask, b.w, b.h)!;
  // Bounds of the opaque part (alpha ≥ 128), recropped.
  const bounds = { x: b.x + inner.x, y: b.y + inner.y, w: inner.w, h: inner.h };
  const m = new Uint8Array(inner.w * inner.h);
  for (let y = 0; y < inner.h; y++)
    m.set(mask.subarray((inner.y + y) * b.w + inner.x, (inner.y + y) * b.w + inner.x + inner.w), y * inner.w);
  return {
    layerId: layer.id,
    name: layer.name,
    raster: r,
    bounds,
    mask: m,
    area,
    cx: b.x + sx / area + 0.5,
    cy: b.y + sy / area + 0.5,
    symmetry: mirrorIoU(m, inner.w, inner.h, m, inner.w, inner.h),
    neckDepth: neckDepth(m, inner.w, inner.h),
    elongation: Math.max(inner.w / inner.h, inner.h / inner.w),
  };
}

/** IoU of mask A with the horizontal mirror of mask B, both anchored at their top-left, B resampled to A's size. */
export function mirrorIoU(
  a: Uint8Array,
  aw: number,
  ah: number,
  b: Uint8Array,
  bw: number,
  bh: number,
  flip = true,
): number {
  let inter = 0;
  let uni = 0;
  for (let y = 0; y < ah; y++) {
    const by = Math.min(bh - 1, Math.floor(((y + 0.5) * bh) / ah));
    for (let x = 0; x < aw; x++) {
      let bx = Math.min(bw - 1, Math.floor(((x + 0.5) * bw) / aw));
      if (flip) bx = bw - 1 - bx;
      const p = a[y * aw + x]!;
      const q = b[by * bw + bx]!;
      inter += p & q;
      uni += p | q;
    }
  }
  return uni ? Math.round((inter / uni) * 1000) / 1000 : 0;
}

/** Top edge at the centre column minus the higher of the top edges at 25 % and 75 %, over the height. */
function neckDepth(m: Uint8Array, w: number, h: number): number {
  const top = (fx: number) => {
    const x = Math.min(w - 1, Math.floor(w * fx));
    for (let y = 0; y < h; y++) if (m[y * w + x]) return y;
    return h;
  };
  return Math.round(((top(0.5) - Math.min(top(0.25), top(0.75))) / h) * 1000) / 1000;
}

interface NameHint {
  part: Part | 'sleeve';
  side: 'left' | 'right' | null;
}

/**
 * Keywords → part, the most specific first: a 袖口贴边 (cuff facing) is a cuff, other facings and plackets
 * (袖衩 is no sleeve) and a 过肩 (yoke) are neither front nor back, a 袖窿 (armhole) binding finishes the arm
 * opening like a cuff.
 */
const LEXICON: readonly [RegExp, NameHint['part']][] = [
  [/袖口|克夫|裤脚|脚口|裤口|cuff/i, 'cuff'],
  [/袖衩|门襟|挂面|贴边|placket|facing/i, 'other'],
  [/过肩|育克|yoke/i, 'other'],
  [/袖窿|armhole|arm ?binding/i, 'cuff'],
  [/口袋|袋|pocket/i, 'pocket'],
  [/腰头|腰|waist/i, 'waistband'],
  [/帽|hood/i, 'hood'],
  [/领|collar|neck/i, 'collar'],
  [/袖|sleeve/i, 'sleeve'],
  [/前片|前幅|前身|前|front/i, 'front'],
  [/后片|后幅|后身|后|後|back/i, 'back'],
];

export function nameHint(name: string): NameHint | null {
  for (const [re, part] of LEXICON) {
    if (!re.test(name)) continue;
    const side = /左|left|(^|[^a-z])l($|[^a-z])/i.test(name)
      ? 'left'
      : /右|right|(^|[^a-z])r($|[^a-z])/i.test(name)
        ? 'right'
        : null;
    return { part, side };
  }
  return null;
}

/** Shape features of one piece beyond PieceShape's. */
interface Features {
  /** Area over the largest piece's area. */
  readonly rel: number;
  /** Area over the bounding box's area (a rectangle is 1). */
  readonly fill: number;
  /** Height over width. */
  readonly aspect: number;
  /**
   * The narrowest row extent over the top quarter (3–25 % of the height) over the widest: armholes and sloping
   * shoulders pull it down on bodices; a skirt panel stays near 1.
   */
  readonly shoulders: number;
  /** The longer side of the bounds, px. */
  readonly long: number;
}

function featuresOf(s: PieceShape, maxArea: number): Features {
  const { w, h } = s.bounds;
  const extent = new Float64Array(h);
  for (let y = 0; y < h; y++) {
    let x0 = -1;
    let x1 = -1;
    for (let x = 0; x < w; x++) {
      if (!s.mask[y * w + x]) continue;
      if (x0 < 0) x0 = x;
      x1 = x;
    }
    extent[y] = x0 < 0 ? 0 : x1 - x0 + 1;
  }
  let widest = 1;
  for (const e of extent) widest = Math.max(widest, e);
  let top = widest;
  for (let y = Math.floor(h * 0.03); y <= Math.floor(h * 0.25); y++) top = Math.min(top, extent[y]!);
  return {
    rel: s.area / maxArea,
    fill: s.area / (w * h),
    aspect: h / w,
    shoulders: top / widest,
    long: Math.max(w, h),
  };
}

/**
 * Share of `a`'s area where `a` and `b` (resampled onto a's bounds, mirrored when `flip`) differ by more than a
 * one-pixel edge: the difference is eroded by one pixel, so rasterisation and resampling noise along the
 * outline counts for nothing while a different neckline or a missing corner counts in full.
 */
function mismatch(a: PieceShape, b: PieceShape, flip: boolean): number {
  const { w: aw, h: ah } = a.bounds;
  const { w: bw, h: bh } = b.bounds;
  const xor = new Uint8Array(aw * ah);
  for (let y = 0; y < ah; y++) {
    const by = Math.min(bh - 1, Math.floor(((y + 0.5) * bh) / ah));
    for (let x = 0; x < aw; x++) {
      let bx = Math.min(bw - 1, Math.floor(((x + 0.5) * bw) / aw));
      if (flip) bx = bw - 1 - bx;
      xor[y * aw + x] = a.mask[y * aw + x]! ^ b.mask[by * bw + bx]!;
    }
  }
  let n = 0;
  for (let y = 1; y < ah - 1; y++) {
    for (let x = 1; x < aw - 1; x++) {
      const i = y * aw + x;
      if (xor[i] && xor[i - 1] && xor[i + 1] && xor[i - aw] && xor[i + aw]) n++;
    }
  }
  return n / a.area;
}

/** Mismatch up to which two layers are copies of one cut piece (as drafted or mirrored). */
const SAME_PIECE = 0.004;

export interface Copies {
  /** Per shape, the index of the first shape of its group of copies. */
  readonly group: readonly number[];
  /** Copies paired off two by two, mirror images first: [i, j, 1 − mismatch]. */
  readonly pairs: readonly [number, number, number][];
}

/**
 * Layers that are copies of one cut piece — the same outline as drafted, or mirrored (a left and a right) — with
 * the same size within 2 %. A front and a back of equal size differ at the neckline and stay apart. Copies are
 * grouped (four cuffs are one group) and paired off for printing mirror images: mirrored matches first, then
 * the closest match, then the nearest neighbour.
 */
export function findCopies(shapes: readonly PieceShape[]): Copies {
  const group = shapes.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : root(group[i]!));
  const cands: { i: number; j: number; mirrored: boolean; miss: number; dist: number }[] = [];
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i]!;
      const b = shapes[j]!;
      if (Math.abs(a.bounds.w - b.bounds.w) > Math.max(2, a.bounds.w * 0.02)) continue;
      if (Math.abs(a.bounds.h - b.bounds.h) > Math.max(2, a.bounds.h * 0.02)) continue;
      if (Math.abs(a.area - b.area) > a.area * 0.04) continue;
      const flipped = mismatch(a, b, true);
      const direct = mismatch(a, b, false);
      const miss = Math.min(flipped, direct);
      if (miss > SAME_PIECE) continue;
      const ri = root(i);
      const rj = root(j);
      if (ri !== rj) group[Math.max(ri, rj)] = Math.min(ri, rj);
      cands.push({
        i,
        j,
        mirrored: flipped + 0.002 < direct,
        miss,
        dist: Math.hypot(a.cx - b.cx, a.cy - b.cy),
      });
    }
  }
  // Asymmetric mirror images pair first; symmetric copies by closeness of match, then of position.
  cands.sort(
    (p, q) =>
      Number(q.mirrored) - Number(p.mirrored) || Math.round((p.miss - q.miss) * 1e4) || p.dist - q.dist,
  );
  const used = new Set<number>();
  const pairs: [number, number, number][] = [];
  for (const c of cands) {
    if (used.has(c.i) || used.has(c.j)) continue;
    used.add(c.i);
    used.add(c.j);
    pairs.push([c.i, c.j, Math.round((1 - c.miss) * 1000) / 1000]);
  }
  return { group: shapes.map((_, i) => root(i)), pairs };
}

type Role = NameHint['part'];

/** One cut piece and its copies in the document, with what the garment template makes of it. */
interface PieceType {
  readonly members: readonly number[];
  /** How many layers are this piece (its cut count in the document). */
  readonly n: number;
  readonly shape: PieceShape;
  readonly f: Features;
  role: Role | null;
  confidence: number;
  reason: string;
}

const pct = (v: number) => `${Math.round(v * 100)}%`;

/**
 * The garment template over the piece types, from shape alone (research/garment.md §2.2): the big pieces are
 * the body — trouser legs (tall, asymmetric, cut in pairs: the wider pair is the back), or full panels
 * (symmetric, cut once) and halves (asymmetric, cut in a mirrored pair or as a left and a right of one height);
 * of two panels the deeper neckline is the front (a raised, draped centre also makes a front); a single panel
 * with halves is the front when its neckline is deep or it is a skirt panel (no armholes, no sleeves), else the
 * back. Remaining medium pieces are sleeves (one-piece, two-piece); long narrow strips are yokes (a neck notch),
 * collars (single, or curved), cuffs and bindings (straight, in pairs) or the waistband (single, on bottoms or
 * as long as 1.4 body widths); small compact pieces are pockets.
 */
function applyTemplate(types: PieceType[]): void {
  const set = (t: PieceType, role: Role, confidence: number, reason: string) => {
    t.role = role;
    t.confidence = confidence;
    t.reason = reason;
  };
  const byArea = [...types].sort((a, b) => b.shape.area - a.shape.area);
  // A band is long and narrow, and narrow also against the garment: at most a quarter of the longest side of
  // any piece (a two-piece under sleeve is as slender as a band but much wider than one).
  const longest = Math.max(...types.map((t) => t.f.long));
  const strip = (t: PieceType) =>
    t.f.rel < 0.45 &&
    Math.min(t.shape.bounds.w, t.shape.bounds.h) <= 0.25 * longest &&
    (t.shape.elongation >= 3 || (t.shape.elongation >= 2.4 && t.f.fill >= 0.85));
  const open = (t: PieceType) => t.role === null;
  const copies = (t: PieceType) => (t.n > 1 ? `，共 ${t.n} 片（左右成对）` : '');
  const largest = byArea[0]!;

  // Trouser legs: the largest piece is a tall, asymmetric pair — very tall, or tall with a second such pair of
  // its height (front and back legs) and no symmetric panel.
  const tallPair = (t: PieceType, aspect: number) =>
    !strip(t) && t.shape.symmetry < 0.9 && t.f.aspect >= aspect && t.n >= 2 && t.f.rel >= 0.4;
  const second = byArea.find((t) => t !== largest && tallPair(t, 1.8));
  const trousers =
    tallPair(largest, 2.2) ||
    (tallPair(largest, 1.8) &&
      second !== undefined &&
      Math.abs(second.shape.bounds.h - largest.shape.bounds.h) <= 0.1 * largest.shape.bounds.h &&
      !types.some((t) => !strip(t) && t.n === 1 && t.shape.symmetry >= 0.9 && t.f.rel >= 0.3));
  const leg = (t: PieceType) => tallPair(t, 1.8);
  let bottom = trousers;
  if (trousers) {
    const legs = byArea
      .filter(leg)
      .slice(0, 2)
      .sort((a, b) => b.shape.bounds.w - a.shape.bounds.w);
    legs.forEach((t, k) => {
      const role = legs.length === 1 ? 'front' : k === 0 ? 'back' : 'front';
      set(
        t,
        role,
        legs.length === 1 ? 0.5 : 0.7,
        `裤片：瘦长、不对称且成对的最大裁片${legs.length > 1 ? `，较宽者（${t.shape.bounds.w}px）为${role === 'back' ? '后片' : '前片'}` : ''}${copies(t)}`,
      );
    });
  } else {
    const full = byArea.filter((t) => !strip(t) && t.shape.symmetry >= 0.9 && t.n === 1 && t.f.rel >= 0.3);
    const capped = (t: PieceType) => t.shape.neckDepth < -0.03;
    // A symmetric pair with a sleeve cap; a pair without one is a pair of panel halves (a skirt back).
    const sleeveLike = (t: PieceType) =>
      !strip(t) && t.f.rel >= 0.08 && t.shape.symmetry >= 0.9 && t.n >= 2 && capped(t);
    // A raised, draped centre (a cowl) is a front; otherwise the deeper neckline is.
    const frontness = (t: PieceType) => (capped(t) ? 1 - t.shape.neckDepth : t.shape.neckDepth);
    const neckWhy = (t: PieceType) =>
      capped(t) ? '领口中部上凸（垂褶领）' : `领口深度 ${t.shape.neckDepth}`;
    if (full.length >= 2) {
      const sorted = [...full].sort((a, b) => frontness(b) - frontness(a));
      sorted.forEach((t, k) => {
        const role =
          k === 0 ? 'front' : k === sorted.length - 1 ? 'back' : frontness(t) >= 0.06 ? 'front' : 'back';
        set(t, role, 0.8, `左右对称、单片裁剪的大裁片，${neckWhy(t)}（领口较深者为前片）`);
      });
    } else {
      const ref = full[0] ?? null;
      const refArea = ref?.shape.area ?? largest.shape.area;
      const big = byArea.filter(
        (t) =>
          open(t) &&
          t !== ref &&
          !strip(t) &&
          (t.shape.symmetry < 0.9 || (t.n >= 2 && !capped(t))) &&
          t.shape.area >= 0.4 * refArea,
      );
      // Halves: the biggest mirrored pair, else a left and a right piece of the same height.
      let halves: PieceType[] = [];
      const pair = big.find((t) => t.n >= 2);
      if (pair) halves = [pair];
      else {
        for (let i = 0; i < big.length && !halves.length; i++) {
          for (let j = i + 1; j < big.length && !halves.length; j++) {
            const a = big[i]!.shape;
            const b = big[j]!.shape;
            if (Math.abs(a.bounds.h - b.bounds.h) <= 0.12 * a.bounds.h && b.area >= 0.6 * a.area)
              halves = [big[i]!, big[j]!];
          }
        }
      }
      if (ref) {
        const skirt =
          !types.some((t) => sleeveLike(t) || (t !== ref && !halves.includes(t) && capped(t))) &&
          ref.f.shoulders >= 0.85 &&
          Math.abs(ref.shape.neckDepth) < 0.04;
        bottom = skirt;
        const refFront = !halves.length || skirt || frontness(ref) >= 0.06;
        set(
          ref,
          refFront ? 'front' : 'back',
          halves.length ? 0.7 : 0.6,
          `左右对称、单片裁剪的最大裁片，${skirt ? '无袖窿、无领口（裙片）' : neckWhy(ref)}${halves.length ? `；另有成对的半片，${refFront ? '半片为后片' : '领口浅，本片为后片、半片为前片'}` : ''}`,
        );
        for (const t of halves)
          set(
            t,
            refFront ? 'back' : 'front',
            0.6,
            `不对称的半片，与“${ref.shape.name}”同属衣身${refFront ? '（后中开缝）' : '（前中开襟）'}${copies(t)}`,
          );
      } else if (halves.length) {
        for (const t of halves) set(t, 'front', 0.45, `没有对称的整片；最大的成对半片当作前片${copies(t)}`);
      }
    }
    // Sleeves: the remaining pieces of some size (one-piece pairs, two-piece sleeves, capped singles).
    for (const t of byArea) {
      if (!open(t) || strip(t) || t.f.rel < 0.08) continue;
      if (t.n >= 2 || t.shape.symmetry < 0.9 || capped(t)) {
        set(
          t,
          'sleeve',
          t.n >= 2 ? 0.75 : 0.5,
          `衣身之外的中等裁片${t.shape.neckDepth < -0.03 ? `，顶部袖山上凸（${t.shape.neckDepth}）` : ''}${copies(t)}`,
        );
      }
    }
  }
  // Strips and small pieces.
  const bodyWidth = Math.max(
    0,
    ...types.filter((t) => t.role === 'front' || t.role === 'back').map((t) => t.shape.bounds.w),
  );
  for (const t of byArea) {
    if (!open(t)) continue;
    const el = t.shape.elongation.toFixed(1);
    if (strip(t)) {
      if (!bottom && t.shape.symmetry >= 0.9 && t.shape.neckDepth >= 0.04) {
        set(t, 'other', 0.5, `细长条（长宽比 ${el}）且上缘中部有领口凹口：过肩/育克`);
      } else if (t.n === 1) {
        const waist = bottom || (bodyWidth > 0 && t.f.long >= bodyWidth * 1.4);
        set(
          t,
          waist ? 'waistband' : 'collar',
          0.6,
          `单片细长条（长宽比 ${el}）${waist ? (bottom ? '，下装' : '，长度超过衣身宽度的 1.4 倍') : '，上装的领/领口条'}`,
        );
      } else {
        const straight = t.f.fill >= 0.9;
        set(
          t,
          straight ? 'cuff' : 'collar',
          0.6,
          `成对的细长条（长宽比 ${el}）${straight ? `，近似矩形（填充 ${pct(t.f.fill)}）：袖口/裤口/包边` : `，弯曲（填充 ${pct(t.f.fill)}）：领座/领面`}${copies(t)}`,
        );
      }
    } else if (t.f.rel < 0.12) {
      set(t, 'pocket', 0.5, `小而紧凑的裁片（面积为最大裁片的 ${pct(t.f.rel)}）`);
    } else {
      set(t, 'other', 0.3, '无法从名称或形状判断');
    }
  }
}

interface Draft {
  shape: PieceShape;
  part: Role;
  side: 'left' | 'right' | null;
  by: DecidedBy;
  confidence: number;
  reason: string;
  pair: number | null;
}

export function classifyPieces(shapes: readonly PieceShape[]): PieceInfo[] {
  if (!shapes.length) return [];
  const maxArea = Math.max(...shapes.map((s) => s.area));
  const hints = shapes.map((s) => nameHint(s.name));
  const { group, pairs } = findCopies(shapes);
  const partner: (number | null)[] = shapes.map(() => null);
  for (const [i, j] of pairs) {
    partner[i] = j;
    partner[j] = i;
  }
  const groups = new Map<number, number[]>();
  shapes.forEach((_, i) => {
    groups.set(group[i]!, [...(groups.get(group[i]!) ?? []), i]);
  });
  const types: PieceType[] = [...groups.values()].map((members) => {
    const rep = members.reduce((a, b) => (shapes[b]!.area > shapes[a]!.area ? b : a));
    return {
      members,
      n: members.length,
      shape: shapes[rep]!,
      f: featuresOf(shapes[rep]!, maxArea),
      role: null,
      confidence: 0,
      reason: '',
    };
  });
  applyTemplate(types);
  // Names overrule the template. When a named body panel contradicts the template's front/back, the template
  // had the neckline rule backwards for this garment: swap front and back among its unnamed body panels.
  const typeOf = new Map<number, PieceType>();
  for (const t of types) for (const i of t.members) typeOf.set(i, t);
  const contradicts = types.some((t) =>
    t.members.some((i) => {
      const p = hints[i]?.part;
      return (p === 'front' || p === 'back') && (t.role === 'front' || t.role === 'back') && p !== t.role;
    }),
  );
  const agrees = types.some((t) =>
    t.members.some((i) => {
      const p = hints[i]?.part;
      return (p === 'front' || p === 'back') && p === t.role;
    }),
  );
  if (contradicts && !agrees) {
    for (const t of types)
      if (t.role === 'front' || t.role === 'back') t.role = t.role === 'front' ? 'back' : 'front';
  }
  const drafts: Draft[] = shapes.map((shape, i) => {
    const hint = hints[i];
    if (hint) {
      return {
        shape,
        part: hint.part,
        side: hint.side,
        by: 'name',
        confidence: 0.95,
        reason: `图层名“${shape.name}”含部位关键词`,
        pair: partner[i]!,
      };
    }
    const t = typeOf.get(i)!;
    // A copy of a named piece is that part.
    const named = t.members.map((k) => hints[k]).find((h) => h !== null);
    if (named) {
      const from = shapes[t.members.find((k) => hints[k] !== null)!]!;
      return {
        shape,
        part: named.part,
        side: null,
        by: 'pair',
        confidence: 0.85,
        reason: `与“${from.name}”是同一裁片${partner[i] !== null ? '（互为镜像）' : ''}`,
        pair: partner[i]!,
      };
    }
    return {
      shape,
      part: t.role ?? 'other',
      side: null,
      by: t.n > 1 ? 'pair' : 'shape',
      confidence: t.confidence,
      reason: t.reason,
      pair: partner[i]!,
    };
  });
  // Sleeve sides: from the name, else from the pair partner, else by position (the one further left is left).
  const sleeves = drafts.filter((d) => d.part === 'sleeve');
  for (const d of sleeves) {
    if (d.side) continue;
    const other = d.pair !== null ? drafts[d.pair]! : null;
    if (other?.side) d.side = other.side === 'left' ? 'right' : 'left';
    else if (other) d.side = d.shape.cx <= other.shape.cx ? 'left' : 'right';
    else {
      const mid = sleeves.reduce((s, x) => s + x.shape.cx, 0) / sleeves.length;
      d.side = sleeves.length > 1 && d.shape.cx > mid ? 'right' : 'left';
    }
  }
  return drafts.map((d, i) => {
    const part: Part = d.part === 'sleeve' ? (d.side === 'right' ? 'right_sleeve' : 'left_sleeve') : d.part;
    const other = d.pair !== null ? drafts[d.pair]! : null;
    // The print of the right piece of a pair (or the later one) mirrors its partner's.
    let mirrorOf: number | null = null;
    if (other) {
      const iAmSecond =
        part === 'right_sleeve' ||
        (part !== 'left_sleeve' &&
          (d.shape.cx > other.shape.cx || (d.shape.cx === other.shape.cx && i > d.pair!)));
      if (iAmSecond) mirrorOf = other.shape.layerId;
    }
    return {
      ...d.shape,
      part,
      confidence: d.confidence,
      decidedBy: d.by,
      pairWith: other ? other.shape.name : null,
      mirrorOf,
      reason: d.reason,
    };
  });
}
