/**
 * Drafted, fifth batch: outerwear whose constructions the set held in one or two designs only, so that a
 * held-out design had little to learn them from — a parka with a three-piece hood (before, only Hugo, Yuri and
 * the zip hoodie had a hood's centre strip), patch pockets with flaps and a storm flap over its zip; a field
 * jacket with a back half-belt (before, only the waistcoat and Carlton), hip pockets with jets and no cuffs
 * (before, only the blazer: its jets were read as cuffs), a turn-down collar cut upper and under, and front
 * facings. Our own geometry from standard measurements and ease at the M size (parka: chest 100 cm + 24 cm;
 * field jacket: chest 100 cm + 16 cm); seam lines in mm, y down, without seam allowance.
 */
import { bodiceHalf, mirrorHalf, path, piece, pocketBag, rect, sleeveHalf } from '../draft-blocks.mjs';
import { arcLength } from './tops.mjs';

/** A front half with a button or zip extension `ext` beyond the centre front (x = 0), hem to neckline. */
function withExtension(half, ext) {
  const neck = half[0];
  const hem = half.at(-1);
  return [...half, [-ext, hem[1]], [-ext, neck[1]]];
}

/**
 * A hood's side from the front edge's top (0, 0): the front edge down to the neck, the neck seam, then the
 * back-and-top curve the centre strip is sewn to, returned apart so the strip can be cut as long as it.
 */
function hoodSide(h, d) {
  const front = path([0, 0], [-12, h]);
  const neck = path([-12, h], { q: [d * 0.5, h + 12], to: [d + 20, h - 45] });
  const crown = path([d + 20, h - 45], {
    c: [
      [d + 15, h * 0.45],
      [d * 0.9, 25],
    ],
    to: [d * 0.5, 4],
  }).concat([[0, 0]]);
  return { outline: front.concat(neck.slice(1), crown.slice(1, -1)), crown };
}

function parka({ g, l, v }) {
  const body = { hw: 310 * g, len: (820 + 15 * v) * l, sw: 235 * g, sd: 50, nw: 100 + 4 * v, ad: 275 * l };
  const front = bodiceHalf({ ...body, nd: 100 + 5 * v, flare: 15 });
  const back = bodiceHalf({ ...body, nd: 26, flare: 15 });
  const hood = hoodSide(400 + 12 * v, 235 + 6 * v);
  // The strip runs along the sides' crown seams, 120 mm wide at the brim, narrowing to 70 mm at the nape.
  const strip = arcLength(hood.crown);
  const centre = mirrorHalf(path([0, 0], [60, 0], { q: [62, strip * 0.5], to: [35, strip] }, [0, strip]));
  const pocketW = (200 + 5 * v) * g;
  const pocket = path(
    [0, 0],
    [pocketW, 0],
    [pocketW, 205],
    { q: [pocketW, 225], to: [pocketW - 20, 225] },
    [20, 225],
    {
      q: [0, 225],
      to: [0, 205],
    },
  );
  const flapOf = mirrorHalf(path([0, 0], [pocketW / 2 + 4, 0], [pocketW / 2 + 4, 55], [0, 75]));
  return [
    piece('parka.front', 'front', '前片', 'Front', 2, front),
    piece('parka.back', 'back', '后片', 'Back', 1, mirrorHalf(back)),
    piece(
      'parka.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 135 * l, bw: 225 * g, sl: (610 + 10 * v) * l, ww: 150 * g })),
    ),
    piece('parka.hoodSide', 'hood', '帽侧片', 'Hood side', 2, hood.outline),
    piece('parka.hoodCentre', 'hood', '帽中片', 'Hood centre', 1, centre),
    piece('parka.pocket', 'pocket', '贴袋', 'Patch pocket', 2, pocket),
    piece('parka.pocketFlap', 'pocket', '袋盖', 'Pocket flap', 2, flapOf),
    // Over the zip, from the neck to the hem, cut double and folded: 2 × 45 mm.
    piece('parka.stormFlap', 'other', '门襟挡风片', 'Storm flap', 1, rect(90, body.len - 20)),
  ];
}

function fieldJacket({ g, l, v }) {
  const ext = 20;
  const body = { hw: 290 * g, len: (720 + 10 * v) * l, sw: 228 * g, sd: 50, nw: 92 + 4 * v, ad: 262 * l };
  const nd = 88 + 5 * v;
  const frontHalf = bodiceHalf({ ...body, nd });
  const back = bodiceHalf({ ...body, nd: 24 });
  const neckOf = (h) => h.slice(0, h.findIndex((q) => q[0] === body.nw) + 1);
  const neckLen = arcLength(neckOf(frontHalf)) + arcLength(neckOf(back)) + ext;
  // A turn-down collar: its neck edge as long as half the neckline, the fall deeper at the points.
  const collarHalf = (shrink) =>
    path(
      [0, 0],
      { q: [neckLen * 0.6, 0], to: [neckLen, -14] },
      [neckLen + 28 + 6 * v - shrink, 78 - shrink],
      {
        q: [neckLen * 0.5, 72 - shrink],
        to: [0, 70 - shrink],
      },
    );
  // The facing: the extension and 60 mm in from the centre front, up the neckline to 40 mm of shoulder.
  const neck = neckOf(frontHalf);
  const shoulderAt = [
    body.nw + ((body.sw - body.nw) * 40) / Math.hypot(body.sw - body.nw, body.sd),
    (body.sd * 40) / Math.hypot(body.sw - body.nw, body.sd),
  ];
  const facing = [
    [-ext, body.len],
    [-ext, nd],
    ...neck,
    shoulderAt,
    ...path(shoulderAt, { q: [90, 140 * l], to: [60, 300 * l] }).slice(1),
    [60, body.len],
  ];
  const beltLen = 2 * (170 + 8 * v) * g;
  const belt = path([0, 0], [beltLen, 0], [beltLen, 45], [0, 45]);
  const jetLen = (165 + 5 * v) * g;
  return [
    piece('fieldjacket.front', 'front', '前片', 'Front', 2, withExtension(frontHalf, ext)),
    piece('fieldjacket.back', 'back', '后片', 'Back', 1, mirrorHalf(back)),
    piece(
      'fieldjacket.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 130 * l, bw: 210 * g, sl: (600 + 10 * v) * l, ww: 140 * g })),
    ),
    piece('fieldjacket.upperCollar', 'collar', '领面', 'Upper collar', 1, mirrorHalf(collarHalf(0))),
    piece('fieldjacket.underCollar', 'collar', '领底', 'Under collar', 1, mirrorHalf(collarHalf(3))),
    piece('fieldjacket.frontFacing', 'other', '挂面', 'Front facing', 2, facing),
    // A half-belt across the back, its ends caught in the side seams; an outer and an under layer.
    piece('fieldjacket.backBelt', 'waistband', '后腰带', 'Back belt', 2, belt),
    // Two jets per hip pocket, each a strip folded along its length.
    piece('fieldjacket.jet', 'pocket', '袋牙', 'Jet', 4, rect(jetLen + 20, 40)),
    piece(
      'fieldjacket.pocketBag',
      'pocket',
      '袋布',
      'Pocket bag',
      4,
      pocketBag(jetLen + 30, 150, 210, 90 * g),
    ),
  ];
}

/** [design, drafter, kind] as scripts/draft-garments.mjs' GARMENTS. */
export const DESIGNS = [
  ['Parka', parka, 'top'],
  ['FieldJacket', fieldJacket, 'top'],
];
