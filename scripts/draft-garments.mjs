/**
 * Generates test/fixtures/freesewing/drafted.json: cut pieces of garments drafted here, with our own simple
 * geometry (not FreeSewing's), for the garment types FreeSewing's npm designs lack or that the issue names —
 * a hoodie with a two-piece hood and a kangaroo pocket, a zip hoodie with a three-piece hood, an anorak with a
 * rounder two-piece hood, a shirt with
 * yoke, collar, collar stand and cuffs,
 * trousers with a waistband and pockets, a T-shirt, an A-line skirt — and, so that no garment type is
 * seen through a single design, shorts, a polo shirt, a button-front skirt and a blouse with a centre-back
 * zip; and, so that the constructions a pattern studio meets every day appear in more than one design
 * (facings, welts and jets, flaps, bindings, leg cuffs and bands, belt loops, fly pieces, yokes, princess
 * seams, raglan sleeves, two-piece sleeves), tops (scripts/drafts/tops.mjs: a tank top, a raglan sweatshirt, a
 * princess-seam dress, a princess-seam blouse, a gilet), tailoring (drafts/tailored.mjs: a blazer, a waistcoat,
 * a chore coat, a double-breasted jacket) and bottoms
 * (drafts/bottoms.mjs: chinos, jeans, joggers, a pencil skirt, culottes), and everyday garments
 * (drafts/everyday.mjs: a bomber jacket, a shift dress with facings, a dropped-shoulder T-shirt); four sizes and
 * proportions each.
 * The same JSON shape as pieces.json (seam lines in mm, y down, top-left of the bounds at 0, 0).
 *
 *   node scripts/draft-garments.mjs test/fixtures/freesewing/drafted.json
 *
 * Deterministic: re-running gives the same file byte for byte.
 */
import { writeFileSync } from 'node:fs';
import { bodiceHalf, mirrorHalf, path, piece, rect, SA, SIZES, sleeveHalf } from './draft-blocks.mjs';
import { DESIGNS as BOTTOMS } from './drafts/bottoms.mjs';
import { DESIGNS as EVERYDAY } from './drafts/everyday.mjs';
import { DESIGNS as TAILORED } from './drafts/tailored.mjs';
import { DESIGNS as TOPS } from './drafts/tops.mjs';

// --- garments ---------------------------------------------------------------------------------------------

function tshirt({ g, l, v }) {
  const hw = 250 * g;
  const len = 700 * l;
  const body = { hw, len, sw: 215 * g, sd: 45, nw: 95 + 5 * v, ad: 230 * l, flare: 10 * v };
  return [
    piece('tshirt.front', 'front', '前片', 'Front', 1, mirrorHalf(bodiceHalf({ ...body, nd: 85 + 8 * v }))),
    piece('tshirt.back', 'back', '后片', 'Back', 1, mirrorHalf(bodiceHalf({ ...body, nd: 22 }))),
    piece(
      'tshirt.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 110 * l, bw: 190 * g, sl: (210 + 25 * v) * l, ww: 165 * g })),
    ),
    piece('tshirt.neckband', 'collar', '领口罗纹', 'Neckband', 1, rect(440 * g + 20 * v, 45)),
  ];
}

function hoodie({ g, l, v }) {
  const hw = 270 * g;
  const len = 620 * l;
  const body = { hw, len, sw: 230 * g, sd: 50, nw: 100, ad: 250 * l };
  const hoodH = 380 + 10 * v;
  const hoodD = 250 + 8 * v;
  const hood = path(
    [0, 0],
    [0, hoodH],
    { q: [hoodD * 0.5, hoodH + 15], to: [hoodD, hoodH - 25] },
    {
      c: [
        [hoodD + 45, hoodH * 0.45],
        [hoodD * 0.7, -20],
      ],
      to: [0, 0],
    },
  ).slice(0, -1);
  const pocketW = 330 * g;
  const pocketTop = 220 * g;
  const pocketH = 230 * l;
  const pocket = mirrorHalf(
    path(
      [0, 0],
      [pocketTop / 2, 0],
      { q: [pocketTop / 2, pocketH * 0.75], to: [pocketW / 2, pocketH * 0.75] },
      [pocketW / 2, pocketH],
      [0, pocketH],
    ),
  );
  return [
    piece('hoodie.front', 'front', '前片', 'Front', 1, mirrorHalf(bodiceHalf({ ...body, nd: 95 + 6 * v }))),
    piece('hoodie.back', 'back', '后片', 'Back', 1, mirrorHalf(bodiceHalf({ ...body, nd: 25 }))),
    piece(
      'hoodie.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 130 * l, bw: 200 * g, sl: (560 + 15 * v) * l, ww: 110 * g })),
    ),
    piece('hoodie.hood', 'hood', '帽片', 'Hood', 2, hood),
    piece('hoodie.pocket', 'pocket', '袋鼠兜', 'Kangaroo pocket', 1, pocket),
    piece('hoodie.cuff', 'cuff', '袖口罗纹', 'Cuff', 2, rect(200 * g, 90)),
    piece('hoodie.hemband', 'waistband', '下摆罗纹', 'Hem band', 1, rect(920 * g, 90 + 5 * v)),
  ];
}

/**
 * A zip hoodie: fronts in a mirrored pair (the zip at the centre front), a three-piece hood (two sides and a
 * centre strip), side-seam pocket bags, raglan-free set-in sleeves, cuffs and a hem band.
 */
function zipHoodie({ g, l, v }) {
  const hw = 265 * g;
  const len = 640 * l;
  const body = { hw, len, sw: 225 * g, sd: 48, nw: 95, ad: 245 * l };
  const frontHalf = bodiceHalf({ ...body, nd: 90 + 5 * v });
  const sideH = 360 + 12 * v;
  const sideD = 200 + 6 * v;
  const hoodSide = path(
    [0, 0],
    [-10, sideH],
    { q: [sideD * 0.5, sideH + 10], to: [sideD + 15, sideH - 40] },
    {
      c: [
        [sideD + 10, sideH * 0.5],
        [sideD * 0.9, 30],
      ],
      to: [sideD * 0.55, 5],
    },
  );
  const strip = mirrorHalf(
    path([0, 0], [45, 0], { q: [50, 300], to: [30, 560 + 15 * v] }, [0, 560 + 15 * v]),
  );
  const bag = path(
    [0, 0],
    [40, 0],
    { q: [200 * g, 40], to: [190 * g, 200] },
    { q: [120, 300], to: [0, 260] },
  );
  return [
    piece('zipHoodie.front', 'front', '前片', 'Front', 2, frontHalf),
    piece('zipHoodie.back', 'back', '后片', 'Back', 1, mirrorHalf(bodiceHalf({ ...body, nd: 24 }))),
    piece(
      'zipHoodie.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 125 * l, bw: 195 * g, sl: (570 + 10 * v) * l, ww: 105 * g })),
    ),
    piece('zipHoodie.hoodSide', 'hood', '帽侧片', 'Hood side', 2, hoodSide),
    piece('zipHoodie.hoodCentre', 'hood', '帽中片', 'Hood centre', 1, strip),
    piece('zipHoodie.pocketBag', 'pocket', '袋布', 'Pocket bag', 2, bag),
    piece('zipHoodie.cuff', 'cuff', '袖口罗纹', 'Cuff', 2, rect(190 * g, 80)),
    piece('zipHoodie.hemband', 'waistband', '下摆罗纹', 'Hem band', 2, rect(450 * g, 80 + 5 * v)),
  ];
}

function shirt({ g, l, v }) {
  const hw = 260 * g;
  const len = 760 * l;
  const tail = 60 + 10 * v;
  const front = (ext) =>
    path(
      [-ext, 85],
      [0, 85],
      { q: [85, 85], to: [90, 0] },
      [220 * g, 50],
      {
        c: [
          [205 * g, 140 * l],
          [225 * g, 235 * l],
        ],
        to: [hw, 245 * l],
      },
      [hw + 5, len - tail],
      { q: [hw * 0.5, len], to: [0, len] },
      [-ext, len],
    );
  const back = mirrorHalf(
    path(
      [0, 0],
      [215 * g, 0],
      {
        c: [
          [210 * g, 90 * l],
          [225 * g, 165 * l],
        ],
        to: [hw + 5, 175 * l],
      },
      [hw + 10, len - 120 - tail],
      { q: [hw * 0.5, len - 110], to: [0, len - 110] },
    ),
  );
  const yokeH = 80 + 5 * v;
  const yoke = mirrorHalf(
    path([0, 22], { q: [85, 22], to: [90, 0] }, [225 * g, 45], [222 * g, yokeH + 20], [0, yokeH + 20]),
  );
  const half = (210 + 10 * v) * g;
  const stand = mirrorHalf(
    path(
      [0, 35],
      { q: [half * 0.6, 35], to: [half, 15] },
      { q: [half + 15, 5], to: [half - 5, -10] },
      { q: [half * 0.6, 5], to: [0, 3] },
    ),
  );
  const collar = mirrorHalf(
    path([0, 0], { q: [half * 0.6, 0], to: [half - 10, 8] }, [half + 30 + 5 * v, 75], {
      q: [half * 0.5, 52],
      to: [0, 50],
    }),
  );
  return [
    piece('shirt.frontLeft', 'front', '左前片', 'Front left', 1, front(35)),
    piece(
      'shirt.frontRight',
      'front',
      '右前片',
      'Front right',
      1,
      front(18).map(([x, y]) => [-x, y]),
    ),
    piece('shirt.back', 'back', '后片', 'Back', 1, back),
    piece('shirt.yoke', 'other', '过肩', 'Yoke', 2, yoke),
    piece(
      'shirt.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 140 * l, bw: 210 * g, sl: (580 + 10 * v) * l, ww: 130 * g })),
    ),
    piece('shirt.cuff', 'cuff', '袖克夫', 'Cuff', 4, rect((240 + 8 * v) * g, 65)),
    piece('shirt.collar', 'collar', '翻领', 'Collar', 2, collar),
    piece('shirt.collarStand', 'collar', '领座', 'Collar stand', 2, stand),
  ];
}

function trousers({ g, l, v }) {
  const len = 1030 * l;
  const leg = (w, ext, rise, cbTilt, hem) =>
    path(
      [0, 0],
      [w, 0],
      { q: [w + 18, 90], to: [w + 8, 200] },
      [w / 2 + hem / 2, len],
      [w / 2 - hem / 2, len],
      [-ext + 10, rise + 60],
      { q: [-ext * 0.2, rise + 10], to: [cbTilt * 0.3, rise * 0.55] },
      [cbTilt, 0],
    );
  const front = leg(220 * g, 45 * g, 250 * l, 0, 210 * g + 10 * v);
  const back = leg(240 * g, 95 * g, 270 * l, -18, 235 * g + 10 * v).map(([x, y], i) =>
    i <= 1 ? [x, y - 30] : [x, y],
  );
  const pocketW = 140 * g;
  const backPocket = mirrorHalf(path([0, 0], [pocketW / 2, 0], [pocketW / 2, 140], [0, 165]));
  const bag = path([0, 0], [150 * g, 0], [170 * g, 140], { q: [170 * g, 300], to: [60, 290] }, [0, 180]);
  return [
    piece('trousers.front', 'front', '前裤片', 'Front leg', 2, front),
    piece('trousers.back', 'back', '后裤片', 'Back leg', 2, back),
    piece('trousers.waistband', 'waistband', '腰头', 'Waistband', 1, rect((840 + 20 * v) * g, 80)),
    piece('trousers.backPocket', 'pocket', '后袋', 'Back pocket', 2, backPocket),
    piece('trousers.pocketBag', 'pocket', '袋布', 'Pocket bag', 2, bag),
  ];
}

function skirt({ g, l, v }) {
  const len = (560 + 40 * v) * l;
  const waist = 175 * g;
  const hem = (300 + 35 * v) * g;
  const panel = (dip) =>
    path(
      [0, dip],
      { q: [waist * 0.5, dip], to: [waist, 0] },
      { q: [waist + 25, 150], to: [hem, len] },
      {
        q: [hem * 0.5, len + 12],
        to: [0, len + 12],
      },
    );
  return [
    piece('skirt.front', 'front', '前裙片', 'Front skirt', 1, mirrorHalf(panel(8))),
    piece('skirt.back', 'back', '后裙片', 'Back skirt', 2, panel(14)),
    piece('skirt.waistband', 'waistband', '腰头', 'Waistband', 1, rect((720 + 20 * v) * g, 70)),
  ];
}

/**
 * An anorak: a longer pullover with a front neck slit, a two-piece hood with a rounded crown and a curved
 * face edge, a patch chest pocket, long sleeves with cuffs.
 */
function anorak({ g, l, v }) {
  const hw = 285 * g;
  const len = 760 * l;
  const body = { hw, len, sw: 240 * g, sd: 52, nw: 105, ad: 260 * l, flare: 15 };
  const hoodH = 400 + 12 * v;
  const hoodD = 270 + 10 * v;
  const hood = path(
    [0, 30],
    { q: [25, hoodH * 0.5], to: [0, hoodH] },
    { q: [hoodD * 0.45, hoodH + 25], to: [hoodD, hoodH - 10] },
    {
      c: [
        [hoodD + 20, hoodH * 0.3],
        [hoodD * 0.55, -35],
      ],
      to: [40, 0],
    },
  );
  return [
    piece('anorak.front', 'front', '前片', 'Front', 1, mirrorHalf(bodiceHalf({ ...body, nd: 110 + 10 * v }))),
    piece(
      'anorak.back',
      'back',
      '后片',
      'Back',
      1,
      mirrorHalf(bodiceHalf({ ...body, nd: 28, len: len + 20 })),
    ),
    piece(
      'anorak.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 140 * l, bw: 215 * g, sl: (600 + 15 * v) * l, ww: 130 * g })),
    ),
    piece('anorak.hood', 'hood', '帽片', 'Hood', 2, hood),
    piece('anorak.pocket', 'pocket', '胸袋', 'Chest pocket', 1, rect(300 * g, 200 + 10 * v)),
    piece('anorak.cuff', 'cuff', '袖克夫', 'Cuff', 2, rect(250 * g, 60)),
  ];
}

/** Shorts: the trouser block cut at mid-thigh, a waistband in two halves, patch pockets behind. */
function shorts({ g, l, v }) {
  const len = (420 + 30 * v) * l;
  const leg = (w, ext, rise, cbTilt) =>
    path(
      [0, 0],
      [w, 0],
      { q: [w + 16, 80], to: [w + 10, 180] },
      [w + 14, len],
      [-ext + 5, len],
      [-ext, rise + 40],
      { q: [-ext * 0.15, rise], to: [cbTilt * 0.3, rise * 0.55] },
      [cbTilt, 0],
    );
  const front = leg(215 * g, 50 * g, 240 * l, 0);
  const back = leg(235 * g, 100 * g, 265 * l, -20).map(([x, y], i) => (i <= 1 ? [x, y - 30] : [x, y]));
  return [
    piece('shorts.front', 'front', '前裤片', 'Front leg', 2, front),
    piece('shorts.back', 'back', '后裤片', 'Back leg', 2, back),
    piece('shorts.waistband', 'waistband', '腰头', 'Waistband', 2, rect((430 + 10 * v) * g, 70)),
    piece('shorts.backPocket', 'pocket', '后袋', 'Back pocket', 2, rect(130 * g, 150)),
  ];
}

/** A polo shirt: T-shirt body, a knitted flat collar, a placket, sleeve bands. */
function polo({ g, l, v }) {
  const hw = 255 * g;
  const len = 720 * l;
  const body = { hw, len, sw: 218 * g, sd: 46, nw: 90, ad: 235 * l, tail: 15 };
  const collarHalf = path([0, 0], [210 * g, 0], [225 * g + 5 * v, 80], [0, 80]);
  return [
    piece('polo.front', 'front', '前片', 'Front', 1, mirrorHalf(bodiceHalf({ ...body, nd: 75 }))),
    piece('polo.back', 'back', '后片', 'Back', 1, mirrorHalf(bodiceHalf({ ...body, nd: 20, len: len + 30 }))),
    piece(
      'polo.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 105 * l, bw: 185 * g, sl: (190 + 15 * v) * l, ww: 160 * g })),
    ),
    piece('polo.collar', 'collar', '罗纹领', 'Collar', 1, mirrorHalf(collarHalf)),
    piece('polo.placket', 'other', '门襟', 'Placket', 2, rect(35, 160 + 10 * v)),
    piece('polo.sleeveBand', 'cuff', '袖口罗纹', 'Sleeve band', 2, rect(320 * g, 30)),
  ];
}

/** A button-front skirt: front halves with the button extension, a back on the fold, waistband, patch pockets. */
function buttonSkirt({ g, l, v }) {
  const len = (600 + 30 * v) * l;
  const waist = 180 * g;
  const hem = (260 + 25 * v) * g;
  const half = (ext, dip) =>
    path(
      [-ext, dip],
      [0, dip],
      { q: [waist * 0.5, dip], to: [waist, 0] },
      { q: [waist + 20, 160], to: [hem, len] },
      {
        q: [hem * 0.5, len + 10],
        to: [0, len + 10],
      },
      [-ext, len + 10],
    );
  return [
    piece('buttonSkirt.front', 'front', '前裙片', 'Front skirt', 2, half(30, 6)),
    piece('buttonSkirt.back', 'back', '后裙片', 'Back skirt', 1, mirrorHalf(half(0, 12).slice(1, -1))),
    piece('buttonSkirt.waistband', 'waistband', '腰头', 'Waistband', 1, rect((760 + 20 * v) * g, 80)),
    piece(
      'buttonSkirt.pocket',
      'pocket',
      '贴袋',
      'Patch pocket',
      2,
      mirrorHalf(path([0, 0], [80 * g, 0], [80 * g, 150], [0, 175])),
    ),
  ];
}

/** A blouse: a front on the fold with a deep V neck, back halves with a centre-back zip, sleeves, cuffs. */
function blouse({ g, l, v }) {
  const hw = 240 * g;
  const len = 640 * l;
  const body = { hw, len, sw: 200 * g, sd: 42, nw: 85, ad: 225 * l, flare: 15 };
  const front = mirrorHalf(
    path(
      [0, 150 + 10 * v],
      [85, 0],
      [200 * g, 42],
      {
        c: [
          [188 * g, 130 * l],
          [200 * g, 215 * l],
        ],
        to: [hw, 225 * l],
      },
      [hw + 15, len],
      [0, len],
    ),
  );
  return [
    piece('blouse.front', 'front', '前片', 'Front', 1, front),
    piece('blouse.back', 'back', '后片', 'Back', 2, bodiceHalf({ ...body, nd: 25 })),
    piece(
      'blouse.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 135 * l, bw: 175 * g, sl: (520 + 20 * v) * l, ww: 120 * g })),
    ),
    piece('blouse.cuff', 'cuff', '袖克夫', 'Cuff', 2, rect(220 * g, 70)),
  ];
}

/** [design, drafter, kind: a top is worn from the shoulders (a dress too), a bottom from the waist]. */
const GARMENTS = [
  ['TShirt', tshirt, 'top'],
  ['Hoodie', hoodie, 'top'],
  ['ZipHoodie', zipHoodie, 'top'],
  ['Anorak', anorak, 'top'],
  ['Shirt', shirt, 'top'],
  ['Trousers', trousers, 'bottom'],
  ['ALineSkirt', skirt, 'bottom'],
  ['Shorts', shorts, 'bottom'],
  ['Polo', polo, 'top'],
  ['ButtonSkirt', buttonSkirt, 'bottom'],
  ['Blouse', blouse, 'top'],
  ...TOPS,
  ...TAILORED,
  ...BOTTOMS,
  ...EVERYDAY,
];

const target = process.argv[2];
if (!target) throw new Error('usage: node scripts/draft-garments.mjs <out.json>');
const garments = [];
for (const [design, draft, kind] of GARMENTS) {
  for (const size of SIZES) {
    garments.push({
      id: `${design.toLowerCase()}-${size.id}`,
      design,
      package: 'atelier drafter (scripts/draft-garments.mjs)',
      size: size.id,
      set: 'drafted',
      kind,
      pieces: draft(size),
    });
  }
}
const doc = {
  about:
    'Cut-piece seam lines of garments drafted by scripts/draft-garments.mjs (our own geometry, MIT like the ' +
    'project); mm, y down, simplified (Douglas–Peucker 0.8 mm). See README.md beside this file.',
  seamAllowanceMm: SA,
  versions: {},
  garments,
};
writeFileSync(target, `${JSON.stringify(doc)}\n`);
console.log(
  `${garments.length} garments, ${garments.reduce((s, g) => s + g.pieces.length, 0)} pieces → ${target}`,
);
