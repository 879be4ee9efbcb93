/**
 * Drafted, fourth batch: everyday garments whose constructions the set held in one design only — a bomber
 * jacket (ribbing collar, cuffs and hem band on one garment, to be told apart by length alone; welts and pocket
 * bags), a sleeveless shift dress with neck and armhole facings (before, only the princess dress had
 * armhole facings) and a boxy dropped-shoulder T-shirt with sleeve bands (before, only the polo had them).
 * Our own geometry from standard measurements and ease at the M size (bomber: chest 100 cm + 16 cm; dress:
 * bust 92 cm + 8 cm; tee: chest 100 cm + 20 cm, shoulder dropped 55 mm); seam lines in mm, y down, without seam
 * allowance.
 */
import { bodiceHalf, mirrorHalf, path, piece, pocketBag, rect, sleeveHalf } from '../draft-blocks.mjs';
import { arcLength, dressFacings } from './tops.mjs';

/** Ribbing is cut shorter than the edge it finishes and stretched on: about 85 % of it. */
const RIB = 0.85;

function bomber({ g, l, v }) {
  const common = { hw: 290 * g, len: (560 + 10 * v) * l, sw: 228 * g, sd: 50, nw: 95 + 4 * v, ad: 262 * l };
  const front = bodiceHalf({ ...common, nd: 95 + 6 * v });
  const back = bodiceHalf({ ...common, nd: 25 });
  const neckOf = (h) => h.slice(0, h.findIndex((q) => q[0] === common.nw) + 1);
  const neckEdge = 2 * (arcLength(neckOf(front)) + arcLength(neckOf(back)));
  const sleeve = { ch: 140 * l, bw: 205 * g, sl: (575 + 10 * v) * l, ww: 125 * g };
  const bag = pocketBag((185 + 5 * v) * g, 170, 230, 95 * g);
  return [
    piece('bomber.front', 'front', '前片', 'Front', 2, front),
    piece('bomber.back', 'back', '后片', 'Back', 1, mirrorHalf(back)),
    piece('bomber.sleeve', 'sleeve', '袖子', 'Sleeve', 2, mirrorHalf(sleeveHalf(sleeve))),
    piece('bomber.collar', 'collar', '罗纹领', 'Rib collar', 1, rect(neckEdge * RIB, 100 + 10 * v)),
    piece('bomber.cuff', 'cuff', '袖口罗纹', 'Rib cuff', 2, rect(2 * sleeve.ww * RIB, 150)),
    piece(
      'bomber.hemBand',
      'waistband',
      '下摆罗纹',
      'Rib hem band',
      1,
      rect(4 * common.hw * RIB, 130 + 10 * v),
    ),
    piece('bomber.welt', 'pocket', '袋牙', 'Welt', 2, rect((165 + 5 * v) * g, 55)),
    piece('bomber.pocketBag', 'pocket', '袋布', 'Pocket bag', 4, bag),
  ];
}

/**
 * Half a sleeveless dress from the centre: neckline (depth nd), shoulder to (sw, sd), the armhole down to the
 * side at (hw, ad) (`hollow`: how far the curve cuts in below the shoulder — a front armhole is scooped more
 * than a back), the side seam flaring to the hem. Returns the outline and the runs the facings follow.
 */
function shiftHalf({ hw, len, sw, sd, nw, nd, ad, flare, hollow }) {
  const neck = path([0, nd], { q: [nw * 0.92, nd], to: [nw, 0] });
  const arm = path([sw, sd], {
    c: [
      [sw - hollow, sd + (ad - sd) * 0.6],
      [sw + (hw - sw) * 0.25, ad],
    ],
    to: [hw, ad],
  });
  const side = [
    [hw, ad],
    [hw + flare, len],
  ];
  const hem = path([hw + flare, len], { q: [(hw + flare) * 0.5, len + 6], to: [0, len + 6] });
  return { outline: neck.concat(arm, hem), neck, arm, shoulder: [neck.at(-1), arm[0]], side };
}

function shiftDress({ g, l, v }) {
  const common = { hw: 250 * g, len: (930 + 25 * v) * l, sw: 178 * g, sd: 44, nw: 88 + 4 * v, ad: 238 * l };
  const front = shiftHalf({ ...common, nd: 105 + 14 * v, flare: 42 + 12 * v, hollow: 26 });
  // The back's shoulder is 8 mm longer (eased onto the front's) and its armhole flatter.
  const back = shiftHalf({ ...common, sw: common.sw + 8, nd: 26 + 5 * v, flare: 38 + 12 * v, hollow: 6 });
  const facings = dressFacings(front, back, {
    neckWidth: 62 + 3 * v,
    armWidth: 48,
    shoulder: (h) => [...h.shoulder],
    side: (h) => h.side,
  });
  return [
    piece('shiftdress.front', 'front', '前片', 'Front', 1, mirrorHalf(front.outline)),
    piece('shiftdress.back', 'back', '后片', 'Back', 2, back.outline),
    piece('shiftdress.frontNeckFacing', 'other', '前领口贴边', 'Front neck facing', 1, facings.frontNeck),
    piece('shiftdress.backNeckFacing', 'other', '后领口贴边', 'Back neck facing', 2, facings.backNeck),
    piece('shiftdress.frontArmFacing', 'other', '前袖窿贴边', 'Front armhole facing', 2, facings.frontArm),
    piece('shiftdress.backArmFacing', 'other', '后袖窿贴边', 'Back armhole facing', 2, facings.backArm),
  ];
}

/** A boxy T-shirt: the shoulder dropped past the shoulder point, a shallow sleeve cap, sleeve bands. */
function droppedTee({ g, l, v }) {
  const body = { hw: 300 * g, len: (640 + 15 * v) * l, sw: 270 * g, sd: 52, nw: 98 + 4 * v, ad: 275 * l };
  const sleeve = { ch: 55 * l, bw: 215 * g, sl: (190 + 15 * v) * l, ww: 195 * g };
  return [
    piece(
      'droppedtee.front',
      'front',
      '前片',
      'Front',
      1,
      mirrorHalf(bodiceHalf({ ...body, nd: 92 + 6 * v })),
    ),
    piece('droppedtee.back', 'back', '后片', 'Back', 1, mirrorHalf(bodiceHalf({ ...body, nd: 24 }))),
    piece('droppedtee.sleeve', 'sleeve', '袖子', 'Sleeve', 2, mirrorHalf(sleeveHalf(sleeve))),
    piece('droppedtee.sleeveBand', 'cuff', '袖口罗纹', 'Sleeve band', 2, rect(2 * sleeve.ww * 0.92, 70)),
    piece('droppedtee.neckband', 'collar', '领口罗纹', 'Neckband', 1, rect((470 + 10 * v) * g, 50)),
  ];
}

/** [design, drafter, kind] as scripts/draft-garments.mjs' GARMENTS. */
export const DESIGNS = [
  ['Bomber', bomber, 'top'],
  ['ShiftDress', shiftDress, 'top'],
  ['DroppedTee', droppedTee, 'top'],
];
