/**
 * Drafted bottoms: chinos, five-pocket jeans, joggers, a pencil skirt and culottes with leg bands, so that the
 * part classifier sees slanted and scooped pocket facings, jetted welts, fly pieces, belt-loop strips, a back
 * yoke, ankle cuffs and leg bands, and a skirt's whole front against its vented back halves in more than one
 * design. Our own geometry from a classic trouser draft (men's waist 84 / seat 100 cm, women's 70 / 96 cm at
 * size M); seam lines in mm, y down, without seam allowance.
 */
import { mirrorHalf, path, piece, quad, rect } from '../draft-blocks.mjs';

// --- geometry on polylines --------------------------------------------------------------------------------

const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];

function length(pts) {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
  return s;
}

/** Runs that each start where the previous one ended, as one point list. */
const join = (...runs) => runs.reduce((all, run) => all.concat(all.length ? run.slice(1) : run), []);

/** Splits a polyline where it first crosses the height y: [up to that point, from that point on]. */
function splitAtY(pts, y) {
  for (let i = 0; i < pts.length - 1; i++) {
    const [a, b] = [pts[i], pts[i + 1]];
    if ((a[1] - y) * (b[1] - y) > 0 || a[1] === b[1]) continue;
    const p = lerp(a, b, (y - a[1]) / (b[1] - a[1]));
    return [pts.slice(0, i + 1).concat([p]), [p].concat(pts.slice(i + 1))];
  }
  throw new Error(`polyline does not reach y = ${y}`);
}

/** The point of the straight waist run at the horizontal position x. */
function onWaist([a, b], x) {
  return lerp(a, b, (x - a[0]) / (b[0] - a[0]));
}

// --- trouser block ----------------------------------------------------------------------------------------

/**
 * One trouser leg, side seam on the left, waist at the side on y = 0: seat width `hip` on the hip line,
 * the fork `ext` beyond it on the crotch line (`rise` below the waist, lowered by `crotchDrop` on a back),
 * the centre seam leaning in by `centreIn` and up by `centreUp` at the waist, the crease line midway across
 * the seat and fork (moved `creaseBack` towards the side on a back), knee and hem widths centred on it (no
 * knee: straight, flared legs). Returned as its seam runs so that pockets, yokes and flies can cut into it.
 */
function trouserLeg(o) {
  const { hip, ext, rise, hipY, knee, kneeY, hem, len, waistIn, centreIn } = o;
  const { centreUp = 0, crotchDrop = 0, creaseBack = 0 } = o;
  const crease = (hip + ext) / 2 - creaseBack;
  const sideWaist = [waistIn, 0];
  const centreWaist = [hip - centreIn, -centreUp];
  const centreHip = [hip, hipY];
  const crotch = [hip + ext, rise + crotchDrop];
  const hemIn = [crease + hem / 2, len];
  const hemOut = [crease - hem / 2, len];
  const sideHip = [0, hipY];
  // below the seat the centre seam keeps its lean for a while before it turns out into the fork
  const lean = Math.hypot(centreIn, hipY + centreUp);
  const reach = (crotch[1] - hipY) * 0.55;
  const centre = path(centreWaist, centreHip, {
    c: [
      [hip + (centreIn / lean) * reach, hipY + ((hipY + centreUp) / lean) * reach],
      [hip + ext * 0.3, crotch[1]],
    ],
    to: crotch,
  });
  const hollow = (a, b, depth) => ({ q: [(a[0] + b[0]) / 2 - depth, (a[1] + b[1]) / 2], to: b });
  const kneeIn = knee && [crease + knee / 2, kneeY];
  const kneeOut = knee && [crease - knee / 2, kneeY];
  const inseam = knee
    ? path(crotch, hollow(crotch, kneeIn, 15), hemIn)
    : path(crotch, hollow(crotch, hemIn, 12));
  const outseam = knee
    ? path(hemOut, kneeOut, hollow(kneeOut, sideHip, 6), { q: [0, hipY * 0.4], to: sideWaist })
    : path(hemOut, hollow(hemOut, sideHip, 6), { q: [0, hipY * 0.4], to: sideWaist });
  return { waist: [sideWaist, centreWaist], centre, inseam, hem: [hemIn, hemOut], outseam };
}

/** The whole leg, clockwise from the side waist. */
const legOutline = (leg) => join(leg.waist, leg.centre, leg.inseam, leg.hem, leg.outseam).slice(0, -1);

/**
 * A pocket opening cut into the front's side-waist corner, from the side seam at height y to the waist at x:
 * straight (a slanted pocket) or hollowed by `scoop` (a jeans' curved opening): its points after the side
 * point, up to the waist point (included).
 */
function opening(leg, { x, y, scoop = 0 }) {
  const top = onWaist(leg.waist, x);
  const side = splitAtY(leg.outseam, y)[0].at(-1);
  return scoop ? quad(side, [top[0] - scoop * 0.2, side[1] - scoop * 0.15], top) : [top];
}

/** A front leg with the pocket opening cut away. */
function frontWithOpening(leg, cut) {
  const curve = opening(leg, cut);
  const [below] = splitAtY(leg.outseam, cut.y);
  return join([curve.at(-1), leg.waist[1]], leg.centre, leg.inseam, leg.hem, below).concat(
    curve.slice(0, -1),
  );
}

/**
 * A piece that lies over the front's side-waist corner (a pocket facing or bag): along the waist to x, down an
 * inner edge `run`, back to the side seam at y and up it to the waist — or, given `cut`, up it only to the
 * pocket opening and along the opening (the bag's upper layer).
 */
function sideCornerPiece(leg, x, run, y, cut) {
  const [, above] = splitAtY(leg.outseam, y);
  const top = onWaist(leg.waist, x);
  const side = above[0];
  const inner = path(top, ...run(top, side));
  if (!cut) return inner.concat(above);
  const [upToOpening] = splitAtY(above, cut.y);
  return inner.concat(upToOpening, opening(leg, cut));
}

/** The fly facing (`double` = false) or the fly shield folded along its length, `long` down the centre front. */
function flyPiece(leg, width, long, double) {
  if (double) {
    return path(
      [0, 0],
      [2 * width, 0],
      [2 * width, long - width],
      { q: [2 * width, long], to: [width, long] },
      { q: [0, long], to: [0, long - width] },
    );
  }
  // the facing follows the front's own centre line, so it curves where the fork begins
  const [centre] = splitAtY(leg.centre, long);
  const end = centre.at(-1);
  const [turn] = splitAtY(leg.centre, long - width * 1.3);
  const back = [turn.at(-1)[0] - width, long - width * 1.3];
  return [[centre[0][0] - width, centre[0][1]], ...centre, ...quad(end, [back[0] + 4, end[1]], back)];
}

// --- garments ---------------------------------------------------------------------------------------------

/**
 * Chinos: flat front with slanted pockets, back legs with jetted (double-welt) pockets, a waistband in two
 * halves joined at the centre back, a fly facing and a fly shield, belt loops cut from one strip.
 */
function chinos({ g, l, v }) {
  const len = 1020 * l;
  const hem = (215 - 8 * v) * g;
  const common = { rise: 265 * l, hipY: 180 * l, kneeY: 620 * l, len };
  const front = trouserLeg({
    ...common,
    hip: 250 * g,
    ext: 50 * g,
    knee: 230 * g,
    hem,
    waistIn: 27 * g,
    centreIn: 8 * g,
  });
  const back = trouserLeg({
    ...common,
    hip: 270 * g,
    ext: 100 * g,
    knee: 270 * g,
    hem: hem + 40 * g,
    waistIn: 8 * g,
    centreIn: 38 * g,
    centreUp: 35 * l,
    crotchDrop: 12,
    creaseBack: 15 * g,
  });
  const slantX = front.waist[0][0] + 40 + 5 * v;
  const slantY = (165 + 5 * v) * l;
  const facing = sideCornerPiece(
    front,
    slantX + 45,
    (top) => [[top[0] - 8, slantY + 30], { q: [top[0] - 20, slantY + 70], to: [top[0] - 60, slantY + 70] }],
    slantY + 70,
  );
  const bagX = front.waist[1][0] - 55 * g;
  const bag = sideCornerPiece(
    front,
    bagX,
    (top, side) => [
      [top[0], 210 * l],
      { q: [top[0] + 5, 330 * l], to: [top[0] - 80, 335 * l] },
      { q: [side[0] + 12, 335 * l], to: side },
    ],
    270 * l,
  );
  // the darts are sewn, so the band is as long as the waist seam less them
  const waistSeam = length(front.waist) + length(back.waist) - 15 * g;
  const loops = v < 2 ? 7 : 8;
  return [
    piece(
      'chinos.front',
      'front',
      '前裤片',
      'Front leg',
      2,
      frontWithOpening(front, { x: slantX, y: slantY }),
    ),
    piece('chinos.back', 'back', '后裤片', 'Back leg', 2, legOutline(back)),
    piece('chinos.waistband', 'waistband', '腰头', 'Waistband', 2, rect(waistSeam + 40 + 25, 80)),
    piece('chinos.beltLoops', 'other', '串带', 'Belt loops', 1, rect(loops * 90, 30)),
    piece('chinos.flyFacing', 'other', '门襟', 'Fly facing', 1, flyPiece(front, 40, 200 * l, false)),
    piece('chinos.flyShield', 'other', '里襟', 'Fly shield', 1, flyPiece(front, 40, 215 * l, true)),
    piece('chinos.pocketFacing', 'pocket', '袋垫布', 'Pocket facing', 2, facing),
    piece('chinos.pocketBag', 'pocket', '袋布', 'Pocket bag', 4, bag),
    piece('chinos.welt', 'pocket', '袋牙', 'Welt', 4, rect(160 + 5 * v, 30)),
  ];
}

/**
 * Five-pocket jeans: low rise, scooped front pockets (a facing and the bag's two layers), a coin pocket, a back
 * yoke that takes the back dart, pentagonal back patch pockets, a one-piece waistband, fly facing and shield,
 * belt loops from one strip. The leg goes from slim to boot cut with v.
 */
function jeans({ g, l, v }) {
  const common = { rise: 240 * l, hipY: 160 * l, kneeY: 600 * l, len: 1040 * l };
  const hem = (185 + 12 * v) * g;
  const knee = (228 - 6 * v) * g;
  const front = trouserLeg({
    ...common,
    hip: 245 * g,
    ext: 45 * g,
    knee,
    hem,
    waistIn: 18 * g,
    centreIn: 10 * g,
  });
  const back = trouserLeg({
    ...common,
    hip: 265 * g,
    ext: 95 * g,
    knee: knee + 40 * g,
    hem: hem + 40 * g,
    waistIn: 5 * g,
    centreIn: 35 * g,
    centreUp: 30 * l,
    crotchDrop: 10,
    creaseBack: 12 * g,
  });
  const scoopX = front.waist[0][0] + (95 + 5 * v) * g;
  const scoopY = (70 + 5 * v) * l;
  const scoop = { x: scoopX, y: scoopY, scoop: scoopX - front.waist[0][0] };
  const facing = sideCornerPiece(
    front,
    scoopX + 45,
    (top) => [[top[0], scoopY + 40], { q: [top[0], scoopY + 75], to: [top[0] - 40, scoopY + 75] }],
    scoopY + 75,
  );
  const bagRun = (top, side) => [
    [top[0], 190 * l],
    { q: [top[0], 280 * l], to: [top[0] - 90, 280 * l] },
    { q: [side[0] + 12, 280 * l], to: side },
  ];
  const bagX = front.waist[1][0] - 45 * g;
  const bagUnder = sideCornerPiece(front, bagX, bagRun, 215 * l);
  // the upper layer of the bag is cut to the scoop, so it stops where the opening does
  const bagUpper = sideCornerPiece(front, bagX, bagRun, 215 * l, scoop);
  // the yoke: deeper at the centre back; the back dart is closed in it (its waist is shorter than its seam)
  const yokeSide = (32 + 3 * v) * l;
  const yokeCentre = (85 + 5 * v) * l;
  const [cw, ch] = [back.centre[0], back.centre[1]];
  const atCentre = lerp(cw, ch, yokeCentre / Math.hypot(ch[0] - cw[0], ch[1] - cw[1]));
  const [belowYoke, aboveYoke] = splitAtY(back.outseam, yokeSide);
  const atSide = aboveYoke[0];
  const backLeg = join(
    [atSide, atCentre],
    [atCentre, ...back.centre.slice(1)],
    back.inseam,
    back.hem,
    belowYoke,
  );
  const dart = 14 * g;
  const yokeUpSide = aboveYoke.slice(1).map(([x, y]) => [x + dart * (1 - y / yokeSide), y]);
  const yoke = [cw, atCentre, atSide, ...yokeUpSide];
  const waistSeam = length(front.waist) + length(back.waist) - dart;
  const loops = v < 2 ? 5 : 7;
  const pocketW = (135 + 5 * v) * Math.sqrt(g);
  const pocketH = (140 + 5 * v) * Math.sqrt(l);
  return [
    piece('jeans.front', 'front', '前裤片', 'Front leg', 2, frontWithOpening(front, scoop)),
    piece('jeans.back', 'back', '后裤片', 'Back leg', 2, backLeg),
    piece('jeans.yoke', 'other', '后育克', 'Back yoke', 2, yoke),
    piece('jeans.waistband', 'waistband', '腰头', 'Waistband', 1, rect(2 * waistSeam + 35, 80)),
    piece('jeans.beltLoops', 'other', '串带', 'Belt loops', 1, rect(loops * 85, 36)),
    piece('jeans.flyFacing', 'other', '门襟', 'Fly facing', 1, flyPiece(front, 38, 175 * l, false)),
    piece('jeans.flyShield', 'other', '里襟', 'Fly shield', 1, flyPiece(front, 38, 190 * l, true)),
    piece('jeans.pocketFacing', 'pocket', '袋垫布', 'Pocket facing', 2, facing),
    piece('jeans.pocketBagUpper', 'pocket', '前袋布', 'Pocket bag (upper)', 2, bagUpper),
    piece('jeans.pocketBagUnder', 'pocket', '后袋布', 'Pocket bag (under)', 2, bagUnder),
    piece('jeans.coinPocket', 'pocket', '表袋', 'Coin pocket', 1, rect(80 + 4 * v, 90 + 3 * v)),
    piece(
      'jeans.backPocket',
      'pocket',
      '后贴袋',
      'Back patch pocket',
      2,
      path([0, 0], [pocketW, 0], [pocketW - 6, pocketH], [pocketW / 2, pocketH + 22], [6, pocketH]),
    ),
  ];
}

/**
 * Joggers: an elastic-waist leg tapering to the ankle, a wide knit waistband, ribbed ankle cuffs, side-seam
 * pocket bags (two layers a pocket) and one back patch pocket.
 */
function joggers({ g, l, v }) {
  const common = { rise: 285 * l, hipY: 190 * l, kneeY: 600 * l, len: 930 * l };
  const hem = (140 - 6 * v) * g;
  const front = trouserLeg({
    ...common,
    hip: 255 * g,
    ext: 55 * g,
    knee: 215 * g,
    hem,
    waistIn: 0,
    centreIn: 10 * g,
  });
  const back = trouserLeg({
    ...common,
    hip: 275 * g,
    ext: 105 * g,
    knee: 245 * g,
    hem: hem + 25 * g,
    waistIn: 0,
    centreIn: 30 * g,
    centreUp: 40 * l,
    crotchDrop: 12,
    creaseBack: 12 * g,
  });
  const deep = (320 + 10 * v) * l;
  const bag = path(
    [0, 0],
    [60 * g, 0],
    { q: [175 * g, 10], to: [185 * g, deep * 0.45] },
    { q: [195 * g, deep - 15], to: [130 * g, deep] },
    { q: [10, deep + 5], to: [0, deep - 90] },
  );
  const [w, h, r] = [150 * Math.sqrt(g), (160 + 5 * v) * Math.sqrt(l), 25];
  const patch = path([0, 0], [w, 0], [w, h - r], { q: [w, h], to: [w - r, h] }, [r, h], {
    q: [0, h],
    to: [0, h - r],
  });
  // the knit band is stretched onto the gathered top of the legs, the cuffs onto the leg openings
  const top = 2 * (length(front.waist) + length(back.waist));
  const opening = length(front.hem) + length(back.hem);
  return [
    piece('joggers.front', 'front', '前裤片', 'Front leg', 2, legOutline(front)),
    piece('joggers.back', 'back', '后裤片', 'Back leg', 2, legOutline(back)),
    piece('joggers.waistband', 'waistband', '罗纹腰头', 'Knit waistband', 1, rect(top * 0.8, 110 + 10 * v)),
    piece('joggers.cuff', 'cuff', '裤脚罗纹', 'Ankle cuff', 2, rect(opening * 0.85, 90 + 5 * v)),
    piece('joggers.pocketBag', 'pocket', '侧缝袋布', 'Side pocket bag', 4, bag),
    piece('joggers.backPocket', 'pocket', '后贴袋', 'Back patch pocket', 1, patch),
  ];
}

/**
 * A pencil skirt: front on the fold and back halves (centre-back zip, a vent extension at the hem), the same
 * width, pegged at the hem; the darts are sewn, not cut out; the back waist dips 1 cm at the centre.
 */
function pencilSkirt({ g, l, v }) {
  const len = (580 + 20 * v) * l;
  const hip = 250 * g;
  const hipY = 200 * l;
  const sideWaist = 208 * g;
  const hemX = hip - (10 + 5 * v) * g;
  // the side waist is raised over the hip's curve; a back dips at the centre
  const waistLine = (dip) => path([0, dip], { q: [sideWaist * 0.6, dip], to: [sideWaist, -8] });
  const side = (dip) =>
    path(
      ...waistLine(dip),
      {
        c: [
          [sideWaist + 18 * g, 50 * l],
          [hip, hipY - 80 * l],
        ],
        to: [hip, hipY],
      },
      [hemX, len],
    );
  const ventH = (170 + 10 * v) * l;
  const ventW = 45;
  const back = side(10).concat([
    [-ventW, len],
    [-ventW, len - ventH],
    [0, len - ventH - ventW],
  ]);
  const [frontDart, backDart] = [25 * g, 30 * g];
  const waist = 2 * (length(waistLine(0)) - frontDart + length(waistLine(10)) - backDart);
  return [
    piece('pencilskirt.front', 'front', '前裙片', 'Front skirt', 1, mirrorHalf(side(0).concat([[0, len]]))),
    piece('pencilskirt.back', 'back', '后裙片', 'Back skirt', 2, back),
    piece('pencilskirt.waistband', 'waistband', '腰头', 'Waistband', 1, rect(waist + 30, 70)),
  ];
}

/**
 * Culottes: wide, flared legs to mid-calf finished by leg bands (a front and a back band a leg, seamed at the
 * side and inside leg), slanted pockets with facings and bags, a waistband with a side zip.
 */
function culottes({ g, l, v }) {
  const common = { rise: 275 * l, hipY: 185 * l, len: (640 + 20 * v) * l };
  const front = trouserLeg({
    ...common,
    hip: 250 * g,
    ext: 55 * g,
    hem: (350 + 25 * v) * g,
    waistIn: 40 * g,
    centreIn: 8 * g,
  });
  const back = trouserLeg({
    ...common,
    hip: 270 * g,
    ext: 100 * g,
    hem: (390 + 25 * v) * g,
    waistIn: 25 * g,
    centreIn: 30 * g,
    centreUp: 25 * l,
    crotchDrop: 10,
    creaseBack: 10 * g,
  });
  const slantX = front.waist[0][0] + 45 + 5 * v;
  const slantY = (160 + 5 * v) * l;
  const facing = sideCornerPiece(
    front,
    slantX + 45,
    (top) => [[top[0] - 8, slantY + 30], { q: [top[0] - 20, slantY + 65], to: [top[0] - 60, slantY + 65] }],
    slantY + 65,
  );
  const bag = sideCornerPiece(
    front,
    front.waist[1][0] - 60 * g,
    (top, side) => [
      [top[0], 200 * l],
      { q: [top[0] + 5, 320 * l], to: [top[0] - 80, 325 * l] },
      { q: [side[0] + 12, 325 * l], to: side },
    ],
    260 * l,
  );
  const waist = 2 * (length(front.waist) - 25 * g + length(back.waist) - 35 * g);
  const band = 100;
  return [
    piece(
      'culottes.front',
      'front',
      '前裤片',
      'Front leg',
      2,
      frontWithOpening(front, { x: slantX, y: slantY }),
    ),
    piece('culottes.back', 'back', '后裤片', 'Back leg', 2, legOutline(back)),
    piece('culottes.waistband', 'waistband', '腰头', 'Waistband', 1, rect(waist + 30, 80)),
    piece('culottes.frontBand', 'cuff', '前裤脚口', 'Front leg band', 2, rect(length(front.hem), band)),
    piece('culottes.backBand', 'cuff', '后裤脚口', 'Back leg band', 2, rect(length(back.hem), band)),
    piece('culottes.pocketFacing', 'pocket', '袋垫布', 'Pocket facing', 2, facing),
    piece('culottes.pocketBag', 'pocket', '袋布', 'Pocket bag', 4, bag),
  ];
}

/** [design, drafter, kind] as scripts/draft-garments.mjs' GARMENTS. */
export const DESIGNS = [
  ['Chinos', chinos, 'bottom'],
  ['Jeans', jeans, 'bottom'],
  ['Joggers', joggers, 'bottom'],
  ['PencilSkirt', pencilSkirt, 'bottom'],
  ['Culottes', culottes, 'bottom'],
];
