/**
 * Matching the print across the seams of the body (对花), as cut-and-sew all-over printing does: the print runs
 * on around the body from panel to panel. The body's panels of one size are a front and a back, each whole or
 * in a left and a right half (a shirt's or a zipped jacket's fronts, a back with a centre seam). Vertically
 * they are aligned at the hem, so the repeat has the same phase at the same garment height on all of them and
 * continues across every seam; horizontally each panel continues from the one before it around the body, seen
 * from outside: the front's halves (the wearer's right, then left), the wearer's left side seam, the back's
 * halves (left, then right), and back to the front at the wearer's right side seam, where the circle closes.
 * With princess seams a side is a centre panel (whole or in halves) between a mirrored pair of side panels, taken
 * round in the same way (panelsOf); so is a jacket's side body (腋下片), between the front and the back under the arm.
 * The fabric meets at the seam line, not at the cut edge: cut pieces carry a seam allowance, so the seam line
 * lies that far inside the cut edge, measured on the body at the height the scale is taken (65 % down the main
 * front, the same distance above the hem on every panel). The allowance is assumed (SIDE_SEAM_ALLOWANCE_MM, the
 * usual 1 cm) and stated in the result, at a centre front or back too (a zip's, or the halves' button stands
 * taken as overlapping by it). The closing seam continues too only when the body's girth between the seam lines
 * is a whole number of repeats; how far it is off is reported.
 *
 * The second half of a mirrored pair draws its partner's print mirrored (render.ts), so it cannot be moved on
 * its own: its print meets its partner's at the centre as a mirror image, and the panels after it run on from
 * it as from any other. When the print is its own mirror image about vertical lines (a plaid's bars, dots,
 * stripes: mirror-axis.ts), a mirrored panel's print runs on too: the whole print is moved so that the line
 * where the garment mirrors (a whole front's middle, or where its halves meet, mirrored or not) falls on one of
 * those lines, and a panel beside a mirrored one continues its print as the mirror image continues it (对格居中).
 * On a marker of several sizes each size's pieces move instead of the print.
 */
import { FULL_PANEL_SYMMETRY, mainFront } from './main-front.js';
import type { CentreAnchor, Extraction, Part, PieceInfo, SeamJoin } from './types.js';

/** A piece's print shifted in document space: it samples the placement at (X − dx, Y − dy). */
export interface PieceShift {
  readonly layerId: number;
  readonly dx: number;
  readonly dy: number;
}

export interface SeamMatch {
  readonly shifts: PieceShift[];
  readonly seams: string[];
  readonly joins: SeamJoin[];
  /**
   * How far (document px) the whole print is to move right so that the garment's mirror lines fall on the
   * print's own (its placement's photoX moves by −printShift / scale); absent when it need not move.
   */
  readonly printShift?: number;
}

/** The seam allowance assumed on the body's seams: the seam line lies this far inside the cut edge. */
export const SIDE_SEAM_ALLOWANCE_MM = 10;

/** A half's centre edge runs straight down the grain for at least this share of the piece's height… */
const CENTRE_STRAIGHT = 0.5;
/** …and for this much more of it than the side seam does (shaped, slanted, or cut into by the armhole). */
const CENTRE_MARGIN = 0.1;

/** A side panel's two edges differ in height by this share of it at least, and so do their matches with the centre. */
const PANEL_EDGE_SPREAD = 0.05;
/** The centre panels stand this much taller than the side panels at least (they reach the neckline). */
const CENTRE_TALLER = 1.04;
/** Side panels run from the armhole (or shoulder) to the hem: at least this share of the centre's height. */
const PANEL_REACH = 0.7;
/** edgeTops reads an edge from this share of the piece's height above its hem. */
const HEM_SKIP = 0.08;
/** …and a hem may slant up to one edge of a panel over this share of its height. */
const HEM_SLANT = 0.2;

/** A half's highest rows (this share of its height)… */
const NECK_ROWS = 0.02;
/** …lie this far (a share of its width) or further from its middle, towards the centre edge. */
const NECK_MARGIN = 0.1;

const none = (why: string): SeamMatch => ({ shifts: [], seams: [why], joins: [] });

/**
 * `axes`: the placement columns (document px, before any shift, pixel centres at integers) about which the print
 * mirrors onto itself, within one period; empty when it does not.
 */
export function seamShifts(
  ext: Extraction,
  pieces: readonly PieceInfo[],
  anchor: PieceInfo,
  scale: number,
  dpi: number,
  axes: readonly number[] = [],
): SeamMatch {
  if (!ext.lattice) return { shifts: [], seams: [], joins: [] };
  const period = ext.lattice.tileW * scale;
  const sizes = [...new Set(pieces.flatMap((p) => (p.size === undefined ? [] : [p.size])))].sort(
    (a, b) => a - b,
  );
  if (sizes.length === 0) {
    const body = pieces.filter((p) => p.part === 'front' || p.part === 'back');
    if (!body.includes(anchor) || anchor.part !== 'front') {
      return none('侧缝未对花：没有前片作为花样基准');
    }
    return bodyMatch(body, anchor, period, dpi, pieces.some(isTop), axes);
  }
  // A graded marker: each size's panels run on from its own main front. One print serves every size, so a size
  // centred on the print's mirror line (对格居中) moves its own pieces' print, every piece of it, rather than the
  // print: what moving the print does on a marker of one garment.
  const out: SeamMatch = { shifts: [], seams: [], joins: [] };
  for (const size of sizes) {
    const own = pieces.filter((p) => p.size === size);
    const body = own.filter((p) => p.part === 'front' || p.part === 'back');
    const main = mainFront(body);
    const matched = main
      ? bodyMatch(body, main, period, dpi, own.some(isTop), axes, '本尺码各裁片的花样')
      : none('侧缝未对花：没有前片');
    const move = matched.printShift ?? 0;
    if (move === 0) out.shifts.push(...matched.shifts);
    else {
      const shifted = new Map(matched.shifts.map((s) => [s.layerId, s]));
      for (const p of own) {
        const s = shifted.get(p.layerId);
        out.shifts.push({ layerId: p.layerId, dx: (s?.dx ?? 0) + move, dy: s?.dy ?? 0 });
      }
    }
    out.joins.push(...matched.joins);
    out.seams.push(...matched.seams.map((line) => `尺码 ${size}：${line}`));
  }
  return out;
}

/**
 * Where the garment's centre front falls on each front panel of each size (CentreAnchor), for a placement motif
 * that is centred on the garment, not on whichever panel carries most of it: a front cut in halves has its centre
 * at the seam line between them (the halves' centre edges, the seam allowance inside the cut edge, as the seams
 * are matched), a whole front at its middle. The panels beside the centre are taken round as their seams are
 * matched (sideOf), each one's centre line as far beyond its entering seam line as the panel before it reaches
 * past that centre, so a motif wider than the centre panel runs on across a princess seam. Vertically the panels'
 * hems are level with the main front's, whose top is the garment's. A size whose fronts cannot be taken round
 * (halves with no side told, more panels than a centre and a pair of side panels) gets none: the motif then stays
 * on its main front.
 */
export function frontAnchors(pieces: readonly PieceInfo[], dpi: number): CentreAnchor[] {
  const out: CentreAnchor[] = [];
  const sa = (SIDE_SEAM_ALLOWANCE_MM / 25.4) * dpi;
  for (const size of new Set(pieces.map((p) => p.size))) {
    const own = pieces.filter((p) => p.size === size);
    const body = own.filter((p) => p.part === 'front' || p.part === 'back');
    const main = mainFront(body);
    if (!main) continue;
    const row = seamRow(main);
    const fronts = body.filter((p) => p.part === 'front');
    const take = (ps: readonly PieceInfo[]) =>
      sideOf(ps, '前片', row, sa, underarmBodies(body, main), own.some(isTop));
    let round = take(fronts);
    // Side panels whose seam to the centre is not told (a jacket's side body with edges alike) leave the
    // motif on the centre panels, where the centre front is still known.
    const single = fronts.filter((p) => !p.duplicateOf);
    if (typeof round === 'string' && (single.length === 3 || single.length === 4)) {
      const split = centreAndSides(single, '前片');
      if (typeof split !== 'string') round = take(split.centre);
    }
    if (typeof round === 'string') continue;
    const halves = round.findIndex((p) => p.centre === 'right');
    const middle = halves >= 0 ? halves : (round.length - 1) >> 1;
    const xs = round.map(() => 0);
    const c = round[middle]!;
    xs[middle] = halves >= 0 ? c.exit : c.piece.bounds.x + c.piece.bounds.w / 2;
    for (let i = middle + 1; i < round.length; i++) xs[i] = round[i]!.entry - round[i - 1]!.exit + xs[i - 1]!;
    for (let i = middle - 1; i >= 0; i--) xs[i] = round[i]!.exit - round[i + 1]!.entry + xs[i + 1]!;
    const hem = (p: PieceInfo) => p.bounds.y + p.bounds.h;
    round.forEach((panel, i) => {
      const p = panel.piece;
      const at = { x: xs[i]!, y: hem(p) - main.bounds.h };
      out.push({ layerId: p.layerId, ...at });
      // A copy stacked in place is not taken round, but it is drawn as the piece it lies on.
      for (const d of fronts.filter((q) => q.duplicateOf === p.name)) {
        out.push({
          layerId: d.layerId,
          x: at.x + d.bounds.x - p.bounds.x,
          y: at.y + d.bounds.y - p.bounds.y,
        });
      }
    });
  }
  return out;
}

const isSleeve = (p: PieceInfo) => p.part === 'left_sleeve' || p.part === 'right_sleeve';
/** A piece of a garment worn from the shoulders: a sleeve, or a piece whose garment's shapes read as a top. */
const isTop = (p: PieceInfo) => isSleeve(p) || p.worn === 'top';

/**
 * The body panels that cannot be taken round the body (trouser legs, panels whose order is not told) still have
 * their hems level: the print's vertical phase is the same at the same garment height on all of them, so
 * horizontal bands meet at every seam whatever the order; the horizontal phase is left as it falls. A panel
 * much shorter than the main front (an upper part) may not reach the hem and is left alone, unless it is a
 * jacket's side body (underarmBodies).
 */
function hemsOnly(
  body: readonly PieceInfo[],
  main: PieceInfo,
  why: string,
  under: readonly PieceInfo[],
): SeamMatch {
  const level = body.filter(
    (p) => p !== main && !p.duplicateOf && (p.bounds.h >= PANEL_REACH * main.bounds.h || under.includes(p)),
  );
  if (!level.length) return none(why);
  const hem = (p: PieceInfo) => p.bounds.y + p.bounds.h;
  const names = (ps: readonly PieceInfo[]) => ps.map((p) => `“${p.name}”`).join('、');
  return {
    shifts: level.map((p) => ({ layerId: p.layerId, dx: 0, dy: hem(p) - hem(main) })),
    joins: [],
    seams: [
      why,
      `各衣片只按下摆对齐：${names([main, ...level])}同一衣身高度的花样垂直相位相同，横向花纹在各条缝处等高；横向相位未对齐`,
      ...(under.length
        ? [
            `${names(under)}按腋下侧片处理：高度与${names([main])}侧缝自下摆至袖窿的长度相当，从袖窿下到下摆，与前后片一起按下摆对齐`,
          ]
        : []),
    ],
  };
}

/** The other piece of `p`'s mirrored pair among `pieces`. */
const mirrorPartner = (pieces: readonly PieceInfo[], p: PieceInfo) =>
  pieces.find((q) => q !== p && (q.mirrorOf === p.layerId || p.mirrorOf === q.layerId));

/** A side body's height against the main front's side seam, from the hem to the armhole: within this share. */
const UNDERARM_MATCH = 0.15;

/**
 * A jacket's side body (腋下片) runs from under the arm to the hem, so it is much shorter than a front that
 * reaches the shoulder, and PANEL_REACH takes it for an upper part. What tells it from one (a coat's back above
 * its tail): it is a mirrored pair, and it stands as tall as the main front's side seam, the shorter of the
 * front's two edges (the centre edge runs on up to the neck), read from the hem to where the armhole turns it.
 */
function underarmBodies(body: readonly PieceInfo[], main: PieceInfo): PieceInfo[] {
  const e = edgeTops(main);
  const side = Math.min(e.left, e.right);
  return body.filter(
    (p) =>
      p !== main &&
      !p.duplicateOf &&
      p.bounds.h < PANEL_REACH * main.bounds.h &&
      mirrorPartner(body, p) !== undefined &&
      Math.abs(p.bounds.h - side) <= UNDERARM_MATCH * side,
  );
}

/** A body panel on its way round: a whole panel, or a half with its centre edge on that side (seen from outside). */
interface Panel {
  readonly piece: PieceInfo;
  readonly centre: 'left' | 'right' | null;
  /** Its seam lines at the matched height, in document columns: where it is entered and left going round. */
  readonly entry: number;
  readonly exit: number;
}

/** One side of the body in the order it is seen from outside, or why it cannot be. */
function sideOf(
  panels: readonly PieceInfo[],
  what: '前片' | '后片',
  row: (p: PieceInfo) => { left: number; right: number } | null,
  sa: number,
  under: readonly PieceInfo[],
  top: boolean,
): Panel[] | string {
  const pieces = panels.filter((p) => !p.duplicateOf);
  const lines = (p: PieceInfo, centre: Panel['centre']): Panel | string => {
    const e = row(p);
    if (!e) return `侧缝未对花：“${p.name}”在衣身高度 65% 处没有像素`;
    return { piece: p, centre, entry: p.bounds.x + e.left + sa, exit: p.bounds.x + e.right - sa };
  };
  if (pieces.length === 1) {
    const p = pieces[0]!;
    if (p.symmetry < FULL_PANEL_SYMMETRY) {
      return `侧缝未对花：${what}只有一片“${p.name}”，且不是完整的左右对称衣片（可能是连折裁的半片）`;
    }
    const one = lines(p, null);
    return typeof one === 'string' ? one : [one];
  }
  if (pieces.length === 3 || pieces.length === 4) return panelsOf(pieces, what, lines, under, top);
  if (pieces.length !== 2) {
    return `侧缝未对花：${what}有 ${pieces.length} 片，只对整片、左右两片或公主缝分片（中片加一对侧片）的衣身对花`;
  }
  const sides = halvesSides(pieces[0]!, pieces[1]!, top);
  if (!sides) {
    return `侧缝未对花：分不出${what}“${pieces[0]!.name}”和“${pieces[1]!.name}”哪片在左、哪片在右（没有一条沿布纹的直中线，领口最高点也不明显偏向一侧，或两片中线在同一侧）`;
  }
  // Seen from outside, the half whose centre edge is on its right comes first (the wearer's right front, the
  // wearer's left back).
  const ordered = sides[0] === 'right' ? [0, 1] : [1, 0];
  const out: Panel[] = [];
  for (const i of ordered) {
    const one = lines(pieces[i]!, sides[i]!);
    if (typeof one === 'string') return one;
    out.push(one);
  }
  return out;
}

type Side = 'left' | 'right';

/**
 * One side of a body with princess seams or side panels: a centre (one whole panel, or two halves) and one
 * mirrored pair of side panels, one each side of it. Which pieces are the centre: the whole symmetric one, or
 * of two pairs the one standing taller (the centre panels reach the neckline, the side panels start at the
 * armhole). Which edge of a side panel is sewn to the centre: the one whose height matches the centre's outer
 * edge (edgeTops) — at a princess seam the taller, at a jacket's side body under the arm the shorter, so the
 * match is read rather than assumed; when the two edges are alike (a side body whose edges both start under the
 * arm) nothing is matched and the result says why. Side panels reach from the armhole to the hem, most of the
 * centre's height; a pair much shorter is taken round only when it is a jacket's side body (`under`,
 * underarmBodies): a pair standing as tall as the front's side seam, not an upper part of a panel cut in two.
 */
function panelsOf(
  pieces: readonly PieceInfo[],
  what: '前片' | '后片',
  lines: (p: PieceInfo, centre: Panel['centre']) => Panel | string,
  under: readonly PieceInfo[],
  top: boolean,
): Panel[] | string {
  const split = centreAndSides(pieces, what);
  if (typeof split === 'string') return split;
  const { centre, side } = split;
  const sideH = Math.max(...side.map((p) => p.bounds.h));
  const centreH = Math.min(...centre.map((p) => p.bounds.h));
  if (sideH < PANEL_REACH * centreH && !side.every((p) => under.includes(p))) {
    return `侧缝未对花：${what}侧片${side.map((p) => `“${p.name}”`).join('、')}不到中片高度的 ${Math.round(PANEL_REACH * 100)}%，不是从袖窿到下摆的分割片（如上下拼接的衣片），也不是与前片侧缝等高的腋下侧片，只对公主缝分片和腋下侧片对花`;
  }
  // The centre seen from outside, and the height of its edges the side panels are sewn to.
  let middle: { piece: PieceInfo; centre: Side | null }[];
  let outer: number;
  if (centre.length === 1) {
    const c = centre[0]!;
    middle = [{ piece: c, centre: null }];
    const e = edgeTops(c);
    outer = (e.left + e.right) / 2;
  } else {
    const sides = halvesSides(centre[0]!, centre[1]!, top);
    if (!sides) {
      return `侧缝未对花：分不出${what}中片“${centre[0]!.name}”和“${centre[1]!.name}”哪片在左、哪片在右`;
    }
    const order = sides[0] === 'right' ? [0, 1] : [1, 0];
    middle = order.map((i) => ({ piece: centre[i]!, centre: sides[i]! }));
    // The outer edge of each half is the one away from its centre edge.
    outer = (edgeTops(middle[0]!.piece).left + edgeTops(middle[1]!.piece).right) / 2;
  }
  // Each side panel's inner edge (sewn to the centre): the one whose height is the centre's outer edge's.
  const inner = side.map((p): Side | null => {
    const { left, right } = edgeTops(p);
    const h = p.bounds.h;
    if (Math.abs(left - right) < PANEL_EDGE_SPREAD * h) return null;
    const dl = Math.abs(left - outer);
    const dr = Math.abs(right - outer);
    if (Math.abs(dl - dr) < PANEL_EDGE_SPREAD * h) return null;
    return dl < dr ? 'left' : 'right';
  });
  if (inner[0] === null || inner[1] === null || inner[0] === inner[1]) {
    return `侧缝未对花：分不出${what}侧片“${side[0]!.name}”、“${side[1]!.name}”哪条边与中片相接（两边高度相近，或与中片的边都对不上）`;
  }
  // Seen from outside: the side panel whose inner edge is on its right, the centre, then the other one.
  const first = inner[0] === 'right' ? 0 : 1;
  const round = [{ piece: side[first]!, centre: null }, ...middle, { piece: side[1 - first]!, centre: null }];
  const out: Panel[] = [];
  for (const r of round) {
    const one = lines(r.piece, r.centre);
    if (typeof one === 'string') return one;
    out.push(one);
  }
  return out;
}

/**
 * Of a side cut in three or four panels, which are the centre (one whole symmetric panel, or the pair standing
 * taller: the centre panels reach the neckline) and which the mirrored pair of side panels; or why not.
 */
function centreAndSides(
  pieces: readonly PieceInfo[],
  what: '前片' | '后片',
): { centre: PieceInfo[]; side: PieceInfo[] } | string {
  const names = pieces.map((p) => `“${p.name}”`).join('、');
  const partner = (p: PieceInfo) => mirrorPartner(pieces, p);
  const paired = pieces.filter((p) => partner(p));
  const single = pieces.filter((p) => !partner(p));
  if (pieces.length === 3) {
    if (paired.length !== 2 || single[0]!.symmetry < FULL_PANEL_SYMMETRY) {
      return `侧缝未对花：${what}${names}不是一片左右对称的中片加一对镜像侧片`;
    }
    return { centre: single, side: paired };
  }
  // Two pairs: the side panels are one outline cut twice (a mirrored pair), the centre a pair of halves.
  const groups =
    paired.length === 4 ? twoPairs(paired, partner) : paired.length === 2 ? [single, paired] : null;
  if (!groups) return `侧缝未对花：${what}${names}不是中片加一对镜像侧片`;
  const tall = (g: readonly PieceInfo[]) => Math.min(...g.map((p) => p.bounds.h));
  const short = (g: readonly PieceInfo[]) => Math.max(...g.map((p) => p.bounds.h));
  const [g0, g1] = groups as [PieceInfo[], PieceInfo[]];
  if (tall(g0) >= CENTRE_TALLER * short(g1) && g1.length === 2 && partner(g1[0]!) === g1[1]) {
    return { centre: g0, side: g1 };
  }
  if (tall(g1) >= CENTRE_TALLER * short(g0) && partner(g0[0]!) === g0[1]) return { centre: g1, side: g0 };
  return `侧缝未对花：分不出${what}${names}哪两片是中片、哪两片是侧片（中片应比侧片高出 ${Math.round((CENTRE_TALLER - 1) * 100)}% 以上，侧片应为镜像的一对）`;
}

/** Four pieces in two mirrored pairs, as the two pairs. */
function twoPairs(
  pieces: readonly PieceInfo[],
  partner: (p: PieceInfo) => PieceInfo | undefined,
): [PieceInfo[], PieceInfo[]] | null {
  const a = pieces[0]!;
  const b = partner(a)!;
  const rest = pieces.filter((p) => p !== a && p !== b);
  return rest.length === 2 && partner(rest[0]!) === rest[1] ? [[a, b], rest] : null;
}

/**
 * How far up from the hem an upright piece's left and right edges run before they turn across (into an armhole, a
 * shoulder, a neckline): rows counted while the edge moves no more than a column a row over a few rows. Read from
 * a little above the hem, whose curve turns the edge too, and above a hem that slants up to the edge: a side
 * front's over a full bust rises a tenth of the panel's height to its princess seam (Noble's in its 44 size), which
 * read before as an edge that turns at once.
 */
function edgeTops(p: PieceInfo): Record<Side, number> {
  const { w, h } = p.bounds;
  const left: number[] = [];
  const right: number[] = [];
  for (let y = 0; y < h; y++) {
    const e = edgesAt(p, y);
    if (!e) continue;
    left.push(e.left);
    right.push(w - e.right);
  }
  const n = left.length;
  const k = Math.max(3, Math.round(n * 0.008));
  const upright = (xs: readonly number[], i: number) => Math.abs(xs[i - k]! - xs[i]!) <= k;
  const top = (xs: readonly number[]) => {
    let i = n - 1 - Math.round(n * HEM_SKIP);
    // A hem that slants up to this edge (a side front's over a full bust) is climbed first.
    const slant = n - 1 - Math.round(n * HEM_SLANT);
    while (i - k >= 0 && i > slant && !upright(xs, i)) i--;
    while (i - k >= 0 && upright(xs, i)) i--;
    return n - 1 - i;
  };
  return { left: top(left), right: top(right) };
}

/**
 * Which edge of each of two upright halves of a top is its centre: first the one away from which the shoulder
 * falls (shoulderSide), when both halves say so and differ; else the straight one (centreSide); else the one its
 * neck point lies towards (neckSide): a back with a shaped centre seam (a swayback curve, Bella's) has no straight
 * edge, and its side seam none either. The shoulder goes first because it is the one cue that reads the same on
 * every kind of front: a wrap front's side seam runs straighter than its crossing edge (Yuri's), a lapel's break
 * point stops the centre's straight run, and a neck point can stand right of the middle on a half that crosses
 * past the centre; over the fixtures' 93 pairs of top halves it decided 48 and was right on all of them, where the
 * straight edge was wrong on 6 and the neck point on 12. A skirt's halves (`top` false) are read at the waist
 * first (waistSide): they have no neck, and their highest point is where the hip curve rises at the side seam.
 */
function halvesSides(a: PieceInfo, b: PieceInfo, top: boolean): [Side, Side] | null {
  for (const side of top ? [shoulderSide, centreSide, neckSide] : [waistSide, centreSide]) {
    const one = side(a);
    const two = side(b);
    if (one !== null && two !== null && one !== two) return [one, two];
  }
  return null;
}

/**
 * Where an upright half's neck point lies, whose top it is: the shoulder slopes down from it to the armhole,
 * away from the centre, and the neckline reaches the centre within a neck's width of it. So the piece's highest
 * rows sit towards its centre edge; within NECK_MARGIN of its middle (a cut-on collar or hood, a strap) they say
 * nothing.
 */
function neckSide(p: PieceInfo): Side | null {
  const { w, h } = p.bounds;
  const rows = Math.max(1, Math.round(h * NECK_ROWS));
  let sum = 0;
  let n = 0;
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < w; x++) {
      if (!p.mask[y * w + x]) continue;
      sum += x + 0.5;
      n++;
    }
  }
  if (n === 0) return null;
  const share = sum / n / w;
  return share < 0.5 - NECK_MARGIN ? 'left' : share > 0.5 + NECK_MARGIN ? 'right' : null;
}

/** From the neck point, the top falls this share of the piece's height… */
const SHOULDER_DROP = 0.1;
/** …this many times further away on the shoulder's side than on the centre's, at least. */
const SHOULDER_SPREAD = 1.5;

/**
 * Which way an upright half's shoulder runs from its neck point, the highest point of its top: the shoulder falls
 * gently to the armhole, at the side seam; the neckline falls to the centre within a neck's width, steeply on a
 * front and a lapel, and a back's shallow neckline reaches the centre edge before the shoulder has fallen as far.
 * It says nothing when the top falls about as far each way from its highest point (45 of the fixtures' 93 pairs of
 * top halves): the other cues then decide.
 */
function shoulderSide(p: PieceInfo): Side | null {
  const { w, h } = p.bounds;
  const top = Array.from({ length: w }, (_, x) => {
    for (let y = 0; y < h; y++) if (p.mask[y * w + x]) return y;
    return h;
  });
  const high = Math.min(...top);
  const at = top.indexOf(high);
  const fall = high + SHOULDER_DROP * h;
  let left = at;
  while (left > 0 && top[left - 1]! <= fall) left--;
  let right = at;
  while (right < w - 1 && top[right + 1]! <= fall) right++;
  const toLeft = at - left + 1;
  const toRight = right - at + 1;
  if (toRight >= SHOULDER_SPREAD * toLeft) return 'left';
  if (toLeft >= SHOULDER_SPREAD * toRight) return 'right';
  return null;
}

/**
 * Which edge of an upright half is its centre front or back: the one running straight down the grain over the
 * most of its height (`rows`: its rows from the top, all by default). A side seam is slanted or shaped, and cut
 * into by the armhole above it.
 */
function centreSide(p: PieceInfo, rows = p.bounds.h): Side | null {
  const { w } = p.bounds;
  const tol = Math.max(1, Math.round(w * 0.01));
  const edges = Array.from({ length: rows }, (_, y) => edgesAt(p, y)).filter((e) => e !== null);
  const straightShare = (xs: readonly number[]) => {
    if (xs.length < 10) return 0;
    const sorted = [...xs].sort((a, b) => a - b);
    // The edge's most common column (the centre line sits there for most of the height).
    let mode = sorted[0]!;
    let best = 0;
    for (let i = 0, j = 0; i < sorted.length; i++) {
      while (sorted[i]! - sorted[j]! > 2 * tol) j++;
      if (i - j + 1 > best) {
        best = i - j + 1;
        mode = sorted[(i + j) >> 1]!;
      }
    }
    return xs.filter((x) => Math.abs(x - mode) <= tol).length / rows;
  };
  const left = straightShare(edges.map((e) => e.left));
  const right = straightShare(edges.map((e) => e.right));
  if (Math.max(left, right) < CENTRE_STRAIGHT || Math.abs(left - right) < CENTRE_MARGIN) return null;
  return left > right ? 'left' : 'right';
}

/** A skirt's hip curve: its side seam curves out from the waist over this share of the piece's height. */
const HIP_ZONE = 0.3;

/**
 * Which edge of an upright half of a skirt (a garment worn from the waist) is its centre: the one running straight
 * down from the waist, where the side seam curves out over the hip. Below the hip a straight skirt's side seam
 * runs as straight as its centre back, longer than a centre back whose vent steps it aside (Penelope's).
 */
const waistSide = (p: PieceInfo): Side | null =>
  centreSide(p, Math.max(1, Math.round(HIP_ZONE * p.bounds.h)));

/** How the print's columns run on a panel: a column of the document → a column of the placement. */
interface Unit {
  dx: number | null;
}

/**
 * The body of one garment (one size) matched round from its main front, which keeps its print where it is.
 * Halves are matched on a top (`top`: with sleeves, or read as worn from the shoulders) or on a garment with a
 * whole front or back: trousers have their fronts and backs in pairs too, but each leg is a tube of its own below
 * the crotch, and its straight outseam would read as a centre edge.
 */
function bodyMatch(
  body: readonly PieceInfo[],
  main: PieceInfo,
  period: number,
  dpi: number,
  top: boolean,
  axes: readonly number[] = [],
  /** What moves to centre the print (printShift), as the result says it. */
  moved = '整幅花样',
): SeamMatch {
  const sa = (SIDE_SEAM_ALLOWANCE_MM / 25.4) * dpi;
  // The body's edges at the height the scale is taken, the same distance above the hem on every panel.
  const row = seamRow(main);
  const pairs = (part: Part) => body.filter((p) => p.part === part && !p.duplicateOf).length === 2;
  const under = underarmBodies(body, main);
  // Trousers are cut with both their fronts and their backs in pairs; a garment with a whole front or back (a
  // gilet, a shift dress with a back zip, a skirt buttoned down the front) goes round the body in one piece, and
  // so does a top (a waistcoat with fronts and backs in halves).
  if (!top && pairs('front') && pairs('back')) {
    return hemsOnly(
      body,
      main,
      '侧缝未对花：前片和后片都分为左右两片，没有袖片，裁片形状也不像上装：按两条裤腿处理（裤腿在裆下各成一圈，不在衣身一周对花）；只对上装或有整片前片、后片的衣身对花',
      under,
    );
  }
  const sides = (['front', 'back'] as const).map((part) =>
    sideOf(
      body.filter((p) => p.part === part),
      part === 'front' ? '前片' : '后片',
      row,
      sa,
      under,
      top,
    ),
  );
  const [fronts, backs] = sides as [Panel[] | string, Panel[] | string];
  if (typeof fronts === 'string') return hemsOnly(body, main, fronts, under);
  if (typeof backs === 'string') return hemsOnly(body, main, backs, under);
  const round = [...fronts, ...backs];
  const byId = new Map(round.map((p) => [p.piece.layerId, p.piece]));

  // Each panel's print is a shift of the placement (its own unit), or its partner's mirrored.
  const units = new Map<number, Unit>();
  const partnerOf = (p: PieceInfo) => (p.mirrorOf !== null ? byId.get(p.mirrorOf) : undefined);
  const unitOf = (p: PieceInfo): Unit => {
    const id = partnerOf(p)?.layerId ?? p.layerId;
    if (!units.has(id)) units.set(id, { dx: null });
    return units.get(id)!;
  };
  /** The placement column a panel's document column `x` samples, with its unit's shift `dx`. */
  const column = (p: PieceInfo, x: number, dx: number) => {
    const partner = partnerOf(p);
    return partner ? partner.bounds.x + (p.bounds.x + p.bounds.w - 1 - x) - dx : x - dx;
  };
  /** The shift that makes `p`'s column at `x` the placement column `c`. */
  const solve = (p: PieceInfo, x: number, c: number) => column(p, x, 0) - c;
  const wrapped = (v: number) => ((v % period) + period) % period;
  const distance = (v: number) => Math.min(wrapped(v), period - wrapped(v));

  const forward = (p: PieceInfo) => partnerOf(p) === undefined;
  const symmetric = axes.length > 0;
  const seamsOf = round.slice(1).map((b, i) => {
    const a = round[i]!;
    return {
      a,
      b,
      pair: b.piece.mirrorOf === a.piece.layerId || a.piece.mirrorOf === b.piece.layerId,
      // With a print that mirrors onto itself, a mirrored panel's print runs on from the panel beside it: a
      // panel's print going right reads columns up (forward) or down (mirrored), and across a seam between the
      // two kinds the print runs on when the columns met add up to twice one of the print's mirror lines.
      across: symmetric && forward(a.piece) !== forward(b.piece),
    };
  });
  /** Where the garment mirrors, in placement columns (the main front unshifted); null while not needed or known. */
  let mirrorLine: number | null = null;
  let misses: number[];
  if (symmetric) {
    // The main front keeps the document's placement (the photo's scale and phase were measured on it), but for
    // where the print's mirror lines fall: a whole symmetric front is where the garment mirrors, and a print
    // that can be centred on its centre front is (对格居中), whether or not any panel is cut as a mirrored pair.
    unitOf(main).dx = 0;
    const own = round.find((p) => p.piece === main);
    if (own && own.centre === null && main.symmetry >= FULL_PANEL_SYMMETRY) {
      mirrorLine = (own.entry + own.exit - 1) / 2;
    } else if (own && own.centre !== null) {
      // Front halves that are no mirrored pair (a shirt's: a button stand on one, a placket on the other) meet at
      // the centre front, where the garment mirrors: the seam line between them, half a column before the first
      // column past it. A mirrored pair's centre is found by propagate, across their seam.
      const centre = seamsOf.find(
        ({ a, b }) => a.piece.part === 'front' && b.piece.part === 'front' && (a === own || b === own),
      );
      if (
        centre &&
        !centre.pair &&
        !centre.across &&
        centre.a.centre === 'right' &&
        centre.b.centre === 'left'
      ) {
        mirrorLine = (centre.a === own ? own.exit : own.entry) - 0.5;
      }
    }
    misses = propagate();
  } else {
    // As they come round: each panel runs on from the one before it, or is checked against it.
    unitOf(round[0]!.piece).dx = 0;
    misses = seamsOf.map(({ a, b }) => {
      const u = unitOf(b.piece);
      const c = column(a.piece, a.exit, unitOf(a.piece).dx!);
      if (u.dx === null) u.dx = solve(b.piece, b.entry, c);
      return distance(column(b.piece, b.entry, u.dx) - c);
    });
    // The main front keeps the document's placement (the photo's scale and phase were measured on it).
    const base = unitOf(main).dx!;
    for (const u of units.values()) u.dx! -= base;
  }

  /**
   * Every seam a condition on the shifts of the two panels' units (and, across a mirrored panel, on the mirror
   * line): a seam with one unknown left decides it, one with none is checked, in the order round the body each
   * time, until none is left; a seam with two unknowns waits for the others, and if all wait, the first decides
   * the mirror line where its two panels meet. Returns each seam's miss.
   */
  function propagate(): number[] {
    const out: (number | null)[] = seamsOf.map(() => null);
    for (;;) {
      // A waiting seam that touches a placed panel is taken before one between two unplaced panels, whose shift
      // would otherwise be set to nothing in particular.
      let waiting = -1;
      let adrift = -1;
      const next = seamsOf.findIndex((j, i) => {
        if (out[i] !== null) return false;
        const placed = unitOf(j.a.piece).dx !== null || unitOf(j.b.piece).dx !== null;
        const unknown =
          Number(unitOf(j.a.piece).dx === null) +
          Number(unitOf(j.b.piece).dx === null && unitOf(j.b.piece) !== unitOf(j.a.piece)) +
          Number(j.across && mirrorLine === null);
        if (unknown > 1 && placed && waiting < 0) waiting = i;
        if (unknown > 1 && adrift < 0) adrift = i;
        return unknown <= 1;
      });
      const i = next >= 0 ? next : waiting >= 0 ? waiting : adrift;
      if (i < 0) return out as number[];
      const { a, b, across } = seamsOf[i]!;
      const ua = unitOf(a.piece);
      const ub = unitOf(b.piece);
      if (ua === ub && ua.dx === null) {
        // A mirrored pair meeting itself (halves at a centre): its one shift puts the mirror line between them.
        ua.dx =
          across && mirrorLine !== null
            ? (column(a.piece, a.exit, 0) + column(b.piece, b.entry, 0) - 2 * mirrorLine) / 2
            : 0;
      }
      if (ua.dx === null && ub.dx === null) ua.dx = 0;
      if (next < 0 && across && mirrorLine === null) {
        mirrorLine = ua.dx !== null ? column(a.piece, a.exit, ua.dx) : column(b.piece, b.entry, ub.dx!);
      }
      // Twice the mirror line is what the two columns add up to across a mirrored panel, else they are equal.
      if (ub.dx === null) {
        const c = column(a.piece, a.exit, ua.dx!);
        ub.dx = solve(b.piece, b.entry, across ? 2 * mirrorLine! - c : c);
      } else if (ua.dx === null) {
        const c = column(b.piece, b.entry, ub.dx);
        ua.dx = solve(a.piece, a.exit, across ? 2 * mirrorLine! - c : c);
      } else if (across && mirrorLine === null) {
        mirrorLine = (column(a.piece, a.exit, ua.dx) + column(b.piece, b.entry, ub.dx)) / 2;
      }
      const ca = column(a.piece, a.exit, ua.dx!);
      const cb = column(b.piece, b.entry, ub.dx!);
      out[i] = distance(across ? ca + cb - 2 * mirrorLine! : cb - ca);
    }
  }
  const joins: SeamJoin[] = [];
  const lines: string[] = [];
  const mm = (px: number) => Math.round((px / dpi) * 254) / 10;
  const name = (p: Panel) => `“${p.piece.name}”`;
  seamsOf.forEach(({ a, b, pair, across }, i) => {
    const miss = misses[i]!;
    const at =
      a.piece.part !== b.piece.part
        ? 'side'
        : a.centre === 'right' && b.centre === 'left'
          ? 'centre'
          : 'panel';
    const where =
      at === 'centre' ? (a.piece.part === 'front' ? '前中' : '后中') : at === 'panel' ? '分割缝' : '侧缝';
    // A mirrored pair meets itself at the centre a pixel off by the pixel grid (a column mirrored is 2·centre − 1
    // − x), and another where rasterising left its two outlines a column apart.
    if (miss > (pair || across ? 2 : 1)) {
      lines.push(
        across
          ? `${name(a)}与${name(b)}在${where}处未对花：花样左右对称，但两片都已随别的缝定位，此处与花样的对称轴相差 ${Math.round(miss)} px（${mm(miss)} mm）`
          : `${name(a)}与${name(b)}在${where}处未对花：${name(b)}是另一片的镜像，花样不能单独移动（相差 ${Math.round(miss)} px）`,
      );
      return;
    }
    const reflected = !symmetric && forward(a.piece) !== forward(b.piece);
    joins.push({ left: a.piece.layerId, right: b.piece.layerId, at, ...(reflected ? { reflected } : {}) });
    const allowance = `按缝份 ${SIDE_SEAM_ALLOWANCE_MM} mm（${Math.round(sa)} px）在裁边内侧对齐净缝线（衣身高度 65% 处）`;
    lines.push(
      across && pair
        ? `${name(a)}与${name(b)}在${where}处以花样的对称轴镜像相接，花样连续（${name(b)}与${name(a)}是镜像对称的一对，花样本身左右对称）`
        : across
          ? `${name(a)}与${name(b)}在${where}处花样连续：${forward(a.piece) ? name(b) : name(a)}是镜像片，花样左右对称，按对称轴续接，${allowance}`
          : pair
            ? `${name(a)}与${name(b)}在${where}处花样镜像相接（${name(b)}与${name(a)}是镜像对称的一对）`
            : at === 'centre'
              ? `${name(a)}与${name(b)}在${where}处花样水平连续：两片的中线止口按缝份 ${SIDE_SEAM_ALLOWANCE_MM} mm（${Math.round(sa)} px）在裁边内侧对齐（门襟搭门按此宽度计）`
              : at === 'panel'
                ? `${name(a)}与${name(b)}在${where}（公主缝或侧片缝）处花样水平连续：${allowance}`
                : `${name(a)}右侧缝与${name(b)}左侧缝处花样水平连续：${allowance}`,
    );
  });

  const hem = (p: PieceInfo) => p.bounds.y + p.bounds.h;
  const shifts: PieceShift[] = [];
  for (const [id, u] of units) {
    const p = byId.get(id)!;
    if (p === main) continue;
    shifts.push({ layerId: id, dx: Math.round(u.dx!), dy: hem(p) - hem(main) });
  }

  // The circle closes at the wearer's right side seam: continuous only for a whole number of repeats round, or,
  // with a print that mirrors onto itself, by the garment's own mirror symmetry.
  const last = round[round.length - 1]!;
  const first = round[0]!;
  const closeAcross = symmetric && forward(last.piece) !== forward(first.piece);
  const cLast = column(last.piece, last.exit, unitOf(last.piece).dx!);
  const cFirst = column(first.piece, first.entry, unitOf(first.piece).dx!);
  if (closeAcross && mirrorLine === null) mirrorLine = (cLast + cFirst) / 2;
  const gap = closeAcross ? cFirst + cLast - 2 * mirrorLine! : cFirst - cLast;
  const girth = round.reduce((s, p) => s + (p.exit - p.entry), 0);
  const miss = Math.round(distance(gap));
  const names = round.map(name).join('、');
  // The print moves so that one of its mirror lines lies where the garment mirrors: the nearest one, a quarter
  // of a repeat or less away when the lines lie half a repeat apart.
  let printShift: number | undefined;
  const seams = [
    `侧缝对花：${names}下摆对齐，同一衣身高度的花样垂直相位相同，${round.length > 2 ? '各条缝' : '两条侧缝'}上的横向花纹都能对上`,
  ];
  const line: number | null = mirrorLine;
  if (line !== null) {
    const nearest = axes.reduce((best, m) => (distance(line - m) < distance(line - best) ? m : best));
    const off = wrapped(line - nearest);
    printShift = off > period / 2 ? off - period : off;
    const both = seamsOf.some((j) => j.across) ? '，镜像片两侧花样连续' : '';
    // Horizontal stripes mirror about every line: they need no move worth a word.
    seams.push(
      Math.abs(printShift) < 1
        ? `花样左右对称：衣身的镜像线（前中）已落在花样的对称轴上${both}`
        : `花样左右对称：${moved}横移 ${Math.round(printShift)} px（${mm(Math.abs(printShift))} mm），使衣身的镜像线落在花样的对称轴上（对格居中）${both}`,
    );
  }
  seams.push(
    ...lines,
    miss <= (closeAcross ? 2 : 1)
      ? `另一条侧缝（${name(last)}右侧—${name(first)}左侧）同样连续${
          // Why: a girth of whole repeats, or a garment that mirrors onto itself (its other side seam mirrors the
          // first one), or, round mirrored panels of a print that does not mirror, phases that happen to meet.
          distance(girth) <= 1
            ? `：净胸围一周 ${Math.round(girth)} px（${mm(girth)} mm）是花样宽度的整数倍`
            : mirrorLine !== null
              ? '（衣身左右镜像对称）'
              : '（两侧花样的水平相位恰好相合）'
        }`
      : `另一条侧缝（${name(last)}右侧—${name(first)}左侧）水平相位相差 ${miss} px（${mm(miss)} mm）：净衣身一周 ${Math.round(girth)} px 不是花样宽度 ${Math.round(period * 10) / 10} px 的整数倍`,
  );
  return { shifts, joins, seams, ...(printShift === undefined ? {} : { printShift }) };
}

/**
 * A panel's cut edges on the row where its seam lines are matched: the height the scale is taken at, 65 % down
 * the main front, the same distance above the hem on every panel.
 */
function seamRow(main: PieceInfo): (p: PieceInfo) => { left: number; right: number } | null {
  const aboveHem = Math.round(main.bounds.h * 0.35);
  return (p) => edgesAt(p, p.bounds.h - 1 - aboveHem);
}

/** The outermost opaque columns of a piece's row (relative to its bounds; `right` is one past the last). */
function edgesAt(p: PieceInfo, row: number): { left: number; right: number } | null {
  const { w, h } = p.bounds;
  const y = Math.min(h - 1, Math.max(0, row));
  let left = -1;
  let right = -1;
  for (let x = 0; x < w; x++) {
    if (!p.mask[y * w + x]) continue;
    if (left < 0) left = x;
    right = x + 1;
  }
  return left < 0 ? null : { left, right };
}
