/**
 * Drafted tailoring: a single-breasted blazer (three-panel body, notched lapel, two-piece sleeve, facings,
 * flapped hip pockets with jets, a welted breast pocket), a waistcoat (V neck, pointed fronts, back with a
 * centre-back seam and a half-belt, welt pockets), a chore coat (boxy workwear jacket: patch pockets, a flap
 * on the chest pocket, a convertible collar, buttoned cuffs) and a double-breasted jacket (peaked lapels, side
 * body, vented back halves, a fuller two-piece sleeve, patch pockets). Our own geometry from standard
 * measurements and ease (M: chest 96 cm; blazer +14 cm ease, waistcoat +8 cm, chore coat +24 cm, double-breasted
 * +16 cm); seam lines in mm, y down,
 * without seam allowance. Shell fabric only: linings (the waistcoat's back is cut from the shell here),
 * canvas and interfacing are not counted.
 */
import { mirrorHalf, path, piece, rect, sleeveHalf } from '../draft-blocks.mjs';

// --- geometry ---------------------------------------------------------------------------------------------

const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];

/** The point `d` mm from a towards b: where a facing's edge leaves a shoulder seam. */
function along(a, b, d) {
  return lerp(a, b, d / Math.hypot(b[0] - a[0], b[1] - a[1]));
}

/** A closed path whose last point repeats its first: drop the repeat. */
const closed = (pts) => pts.slice(0, -1);

/**
 * A folded welt or jet opened flat: a strip `len` long and `2 × depth` high, folded along its length, its ends
 * cut at a slant `slant` parallel to the pocket's angle — unfolded, the slants mirror about the fold.
 */
function foldedWelt(len, depth, slant) {
  return mirrorHalf(path([0, 0], [depth, slant], [depth, len + slant], [0, len]));
}

/** A pocket flap: straight top sewn into the opening, sides flaring slightly, corners rounded by r. */
function flap(w, h, r) {
  return path([0, 0], [w, 0], [w + 3, h - r], { q: [w + 3, h], to: [w + 3 - r, h] }, [r - 3, h], {
    q: [-3, h],
    to: [-3, h - r],
  });
}

// --- blazer -----------------------------------------------------------------------------------------------

/**
 * The blazer's front from the centre front (x = 0, the button extension to x = -ext): shoulder, armhole down to
 * the side panel, the side-panel seam, the hem rounded into the front edge, the front edge up to the break, the
 * lapel out to its point, the gorge line and the neck back to the shoulder. `edge` is the run from the hem at
 * the centre front round the lapel to the neck point, which the facing follows.
 */
function blazerFront({ g, l, v }) {
  const ext = 20;
  const snp = [92 * g, 0];
  const shoulder = [205 * g, 48];
  const sideTop = [228 * g, 255 * l];
  const hemSide = [236 * g, 775 * l];
  const hemY = 790 * l;
  const breakY = (335 + 35 * v) * l;
  const lapelPoint = [-(50 + 6 * v), 190];
  const gorgeEnd = [60 * g, 105];
  const edge = path(
    [90, hemY],
    [40, hemY],
    { q: [-ext, hemY], to: [-ext, hemY - 70 - 10 * v] },
    [-ext, breakY],
    // The lapel's edge: a slight belly (8 mm) between the break and the lapel point.
    { q: [-(43 + 3 * v), (breakY + 190) / 2], to: lapelPoint },
    gorgeEnd,
    { q: [75 * g, 45], to: snp },
  );
  const outline = path(
    snp,
    shoulder,
    {
      c: [
        [188 * g, 130 * l],
        [192 * g, 230 * l],
      ],
      to: sideTop,
    },
    { q: [204 * g, 470 * l], to: hemSide },
    { q: [150 * g, hemY + 2], to: [90, hemY] },
  );
  return { outline: outline.concat(edge.slice(1, -1)), edge, snp, shoulder };
}

/** The front facing: the front's edge and lapel, 80 mm wide below the break, widening to 45 mm of shoulder. */
function blazerFacing({ edge, snp, shoulder }, { l }) {
  const inner = 60;
  const hemY = edge[0][1];
  const atShoulder = along(snp, shoulder, 45);
  return [[inner, hemY], ...edge.slice(1)].concat(
    path(atShoulder, {
      c: [
        [atShoulder[0] - 15, 170 * l],
        [inner, 300 * l],
      ],
      to: [inner, 430 * l],
    }),
  );
}

function blazer(size) {
  const { g, l, v } = size;
  const front = blazerFront(size);
  const sidePanel = path(
    [0, 0],
    { q: [62 * g, 75], to: [125 * g, 30] },
    { q: [100 * g, 260 * l], to: [130 * g, 515 * l] },
    { q: [62 * g, 522 * l], to: [-8 * g, 525 * l] },
    { q: [22 * g, 250 * l], to: [0, 0] },
  );
  const backNeck = [85 * g, 0];
  const backShoulder = [212 * g, 55];
  const back = path(
    [0, 22],
    { q: [60 * g, 22], to: backNeck },
    backShoulder,
    {
      c: [
        [203 * g, 120 * l],
        [196 * g, 170 * l],
      ],
      to: [198 * g, 215 * l],
    },
    { q: [172 * g, 450 * l], to: [192 * g, 760 * l] },
    { q: [100 * g, 765 * l], to: [14 * g, 762 * l] },
    { q: [20 * g, 430 * l], to: [0, 250 * l] },
  );
  // The sleeve's cap (top and under sleeve) is about 4 cm longer than the armhole: the ease a set-in jacket
  // sleeve is shrunk into.
  const topSleeve = path(
    [0, 135],
    {
      c: [
        [25 * g, 60],
        [75 * g, 0],
      ],
      to: [125 * g, 0],
    },
    {
      c: [
        [175 * g, 0],
        [222 * g, 65],
      ],
      to: [232 * g, 118],
    },
    { q: [248 * g, 350 * l], to: [160 * g, 640 * l] },
    [-5, 660 * l],
    { q: [35 * g, 400 * l], to: [0, 135] },
  );
  const underSleeve = path(
    [0, 80],
    {
      c: [
        [30 * g, 135],
        [85 * g, 130],
      ],
      to: [115 * g, 85],
    },
    { q: [132 * g, 55], to: [150 * g, 40] },
    { q: [168 * g, 320 * l], to: [128 * g, 575 * l] },
    [5, 595 * l],
    { q: [35 * g, 360 * l], to: [0, 80] },
  );
  const neckFacing = mirrorHalf(
    path([0, 22], { q: [60 * g, 22], to: backNeck }, along(backNeck, backShoulder, 45), {
      q: [95 * g, 80],
      to: [0, 85],
    }),
  );
  const collarLen = 88 * g + 110;
  const collarHalf = (shrink) =>
    path(
      [0, 0],
      { q: [collarLen * 0.55, 0], to: [collarLen, -20] },
      [collarLen + 25 + 6 * v - shrink, 24 - shrink],
      {
        c: [
          [collarLen * 0.75, 62 - shrink],
          [collarLen * 0.3, 80 - shrink],
        ],
        to: [0, 80 - shrink],
      },
    );
  const flapW = 150 + 6 * v;
  return [
    piece('blazer.front', 'front', '前片', 'Front', 2, front.outline),
    piece('blazer.sidePanel', 'front', '腋下片', 'Side panel', 2, closed(sidePanel)),
    piece('blazer.back', 'back', '后片', 'Back', 2, back),
    piece('blazer.topSleeve', 'sleeve', '大袖', 'Top sleeve', 2, closed(topSleeve)),
    piece('blazer.underSleeve', 'sleeve', '小袖', 'Under sleeve', 2, closed(underSleeve)),
    piece('blazer.frontFacing', 'other', '挂面', 'Front facing', 2, blazerFacing(front, size)),
    piece('blazer.backNeckFacing', 'other', '后领贴', 'Back neck facing', 1, neckFacing),
    piece('blazer.upperCollar', 'collar', '领面', 'Upper collar', 1, mirrorHalf(collarHalf(0))),
    piece('blazer.underCollar', 'collar', '领底', 'Under collar', 2, collarHalf(3)),
    piece('blazer.flap', 'pocket', '袋盖', 'Pocket flap', 2, flap(flapW, 52 + 3 * v, 12)),
    piece('blazer.jet', 'pocket', '袋牙', 'Jet', 4, rect(flapW + 25, 40)),
    piece('blazer.pocketFacing', 'pocket', '袋口贴边', 'Pocket facing', 2, rect(flapW + 30, 65)),
    piece('blazer.breastWelt', 'pocket', '手巾袋牙', 'Breast welt', 1, foldedWelt(100 + 5 * v, 24, 14)),
    piece('blazer.breastPocketFacing', 'pocket', '手巾袋垫布', 'Breast pocket facing', 1, rect(120, 55)),
  ];
}

// --- waistcoat --------------------------------------------------------------------------------------------

/** The waistcoat's front: V neck from the shoulder to the top button, front edge, the pointed hem, the side. */
function waistcoatFront({ g, l, v }) {
  const snp = [80 * g, 0];
  const shoulder = [160 * g, 42];
  const vY = (300 + 20 * v) * l;
  const edgeBottom = [-15, (585 + 8 * v) * l];
  const point = [55, (625 + 12 * v) * l];
  const hemSide = [248 * g, 545 * l];
  const outline = path(
    snp,
    shoulder,
    {
      c: [
        [140 * g, 140 * l],
        [175 * g, 255 * l],
      ],
      to: [262 * g, 275 * l],
    },
    { q: [238 * g, 430 * l], to: hemSide },
    point,
    edgeBottom,
    [-15, vY],
    { q: [25 * g, vY * 0.45], to: snp },
  );
  return { outline: closed(outline), snp, shoulder, vY, edgeBottom, point, hemSide };
}

/** The waistcoat's front facing: the V neck and front edge, 40 mm at the shoulder, round the point. */
function waistcoatFacing({ snp, shoulder, vY, edgeBottom, point, hemSide }, { g, l }) {
  const onHem = lerp(point, hemSide, (115 - point[0]) / (hemSide[0] - point[0]));
  const atShoulder = along(snp, shoulder, 40);
  return path(
    atShoulder,
    snp,
    { q: [25 * g, vY * 0.45], to: [-15, vY] },
    edgeBottom,
    point,
    onHem,
    { q: [50, 500 * l], to: [45, vY + 40] },
    { q: [atShoulder[0] - 40, vY * 0.4], to: atShoulder },
  ).slice(0, -1);
}

function waistcoat(size) {
  const { g, l, v } = size;
  const front = waistcoatFront(size);
  const back = path(
    [0, 20],
    { q: [55 * g, 20], to: [78 * g, 0] },
    [158 * g, 45],
    {
      c: [
        [150 * g, 150 * l],
        [185 * g, 265 * l],
      ],
      to: [255 * g, 285 * l],
    },
    { q: [232 * g, 430 * l], to: [240 * g, 545 * l] },
    { q: [120 * g, 550 * l], to: [0, (560 + 5 * v) * l] },
    [10 * g, 420 * l],
    [0, 230 * l],
  );
  const beltLen = (150 + 10 * v) * g;
  const belt = path([0, 0], [beltLen, 0], [beltLen + 18, 17], [beltLen, 34], [0, 34]);
  return [
    piece('waistcoat.front', 'front', '前片', 'Front', 2, front.outline),
    piece('waistcoat.back', 'back', '后片', 'Back', 2, back),
    piece('waistcoat.frontFacing', 'other', '挂面', 'Front facing', 2, waistcoatFacing(front, size)),
    piece('waistcoat.welt', 'pocket', '袋牙', 'Welt', 2, foldedWelt((110 + 5 * v) * g, 20, 10)),
    piece('waistcoat.breastWelt', 'pocket', '胸袋牙', 'Breast welt', 1, foldedWelt(90 * g, 18, 8)),
    // A half-belt is a belt (waistband in the README's conventions, like Carlton's); two straps, each an
    // outer and an under layer of the shell.
    piece('waistcoat.backBelt', 'waistband', '后腰带', 'Back belt', 4, belt),
  ];
}

// --- chore coat -------------------------------------------------------------------------------------------

/** The chore coat's front: boxy, a straight front edge with a 20 mm button extension, a shirt neckline. */
function choreFront({ g, l, v }) {
  const ext = 20;
  const snp = [90 * g, 0];
  const shoulder = [235 * g, 55];
  const neckY = 90 + 5 * v;
  const hemY = 760 * l;
  const outline = path(
    snp,
    shoulder,
    {
      c: [
        [222 * g, 150 * l],
        [235 * g, 245 * l],
      ],
      to: [300 * g, 265 * l],
    },
    [305 * g, hemY],
    [-ext, hemY],
    [-ext, neckY],
    [0, neckY],
    { q: [80 * g, neckY], to: snp },
  );
  return { outline: closed(outline), snp, shoulder, neckY, hemY, ext };
}

/** The chore coat's front facing: 70 mm of the front edge, the neckline, 40 mm of shoulder. */
function choreFacing({ snp, shoulder, neckY, hemY, ext }, { g, l }) {
  const inner = 50;
  const atShoulder = along(snp, shoulder, 40);
  return path(
    atShoulder,
    snp,
    { q: [80 * g, neckY], to: [0, neckY] },
    [-ext, neckY],
    [-ext, hemY],
    [inner, hemY],
    [inner, 280 * l],
    { q: [inner + 5, 120], to: atShoulder },
  ).slice(0, -1);
}

function choreCoat(size) {
  const { g, l, v } = size;
  const front = choreFront(size);
  const back = mirrorHalf(
    path(
      [0, 22],
      { q: [70 * g, 22], to: [88 * g, 0] },
      [235 * g, 52],
      {
        c: [
          [225 * g, 150 * l],
          [235 * g, 240 * l],
        ],
        to: [300 * g, 265 * l],
      },
      [305 * g, 780 * l],
      [0, 780 * l],
    ),
  );
  const collarLen = 95 * g + 120;
  const collar = mirrorHalf(
    path([0, 0], { q: [collarLen * 0.6, 0], to: [collarLen, -12] }, [collarLen + 30 + 8 * v, 80 + 4 * v], {
      q: [collarLen * 0.5, 75],
      to: [0, 72],
    }),
  );
  const pocketW = (185 + 5 * v) * g;
  const pocketH = (195 + 10 * v) * l;
  const chestW = 130 * g;
  const chestPocket = mirrorHalf(path([0, 0], [chestW / 2, 0], [chestW / 2, 135], [0, 155]));
  const chestFlap = mirrorHalf(path([0, 0], [chestW / 2 + 3, 0], [chestW / 2 + 3, 45], [0, 62]));
  return [
    piece('chorecoat.front', 'front', '前片', 'Front', 2, front.outline),
    piece('chorecoat.back', 'back', '后片', 'Back', 1, back),
    piece(
      'chorecoat.sleeve',
      'sleeve',
      '袖子',
      'Sleeve',
      2,
      mirrorHalf(sleeveHalf({ ch: 110 * l, bw: 225 * g, sl: (570 + 10 * v) * l, ww: 155 * g })),
    ),
    piece('chorecoat.collar', 'collar', '翻领', 'Collar', 2, collar),
    piece('chorecoat.frontFacing', 'other', '挂面', 'Front facing', 2, choreFacing(front, size)),
    piece('chorecoat.pocket', 'pocket', '贴袋', 'Patch pocket', 2, rect(pocketW, pocketH)),
    piece('chorecoat.chestPocket', 'pocket', '胸贴袋', 'Chest pocket', 1, chestPocket),
    piece('chorecoat.chestFlap', 'pocket', '袋盖', 'Pocket flap', 2, chestFlap),
    // Folded along its length: the band is cut at twice its 55 mm height.
    piece('chorecoat.cuff', 'cuff', '袖克夫', 'Cuff', 2, rect((265 + 5 * v) * g, 110)),
  ];
}

// --- double-breasted jacket ---------------------------------------------------------------------------------

/**
 * A double-breasted jacket: a wide (70 mm) overlap, peaked lapels, a dart-shaped front with a separate side
 * body, back halves with a vent, a two-piece sleeve cut fuller than the blazer's, patch pockets. `edge` runs
 * from the hem at the centre front round the peak to the neck point; the facing follows it.
 */
function doubleBreastedFront({ g, l, v }) {
  const ext = 70 + 4 * v;
  const snp = [95 * g, 0];
  const shoulder = [200 * g, 45];
  const hemY = (740 + 10 * v) * l;
  const breakY = (300 + 20 * v) * l;
  const peak = [-(ext + 25), 175];
  const notch = [-(ext - 20), 150];
  const gorgeEnd = [55 * g, 100];
  const edge = path(
    [80, hemY],
    [-ext + 10, hemY],
    { q: [-ext, hemY], to: [-ext, hemY - 12] },
    [-ext, breakY],
    { q: [-(ext + 12), (breakY + 175) / 2], to: peak },
    notch,
    gorgeEnd,
    { q: [78 * g, 40], to: snp },
  );
  const outline = path(
    snp,
    shoulder,
    {
      c: [
        [185 * g, 120 * l],
        [185 * g, 210 * l],
      ],
      to: [205 * g, 240 * l],
    },
    { q: [185 * g, 460 * l], to: [200 * g, hemY - 5] },
    [80, hemY],
  );
  return { outline: outline.concat(edge.slice(1, -1)), edge, snp, shoulder, ext };
}

function doubleBreasted(size) {
  const { g, l, v } = size;
  const front = doubleBreastedFront(size);
  const hemY = front.edge[0][1];
  const facingEdge = front.edge.slice(1);
  const atShoulder = along(front.snp, front.shoulder, 40);
  const frontFacing = [[20, hemY], ...facingEdge].concat(
    path(atShoulder, {
      c: [
        [atShoulder[0] - 20, 160 * l],
        [20, 280 * l],
      ],
      to: [20, 420 * l],
    }),
  );
  const sideBody = path(
    [0, 20],
    { q: [70 * g, 70], to: [140 * g, 25] },
    { q: [118 * g, 280 * l], to: [150 * g, hemY - 15] },
    [-5 * g, hemY - 10],
    { q: [25 * g, 300 * l], to: [0, 20] },
  );
  const backNeck = [88 * g, 0];
  const backShoulder = [205 * g, 52];
  const ventTop = 520 * l;
  const backLen = hemY - 20;
  const back = path(
    [0, 20],
    { q: [62 * g, 20], to: backNeck },
    backShoulder,
    {
      c: [
        [196 * g, 115 * l],
        [190 * g, 165 * l],
      ],
      to: [192 * g, 205 * l],
    },
    { q: [170 * g, 430 * l], to: [188 * g, backLen] },
    [-45, backLen],
    [-45, ventTop + 40],
    [0, ventTop],
    { q: [14 * g, 380 * l], to: [0, 240 * l] },
  );
  const topSleeve = path(
    [0, 150],
    {
      c: [
        [30 * g, 60],
        [85 * g, 0],
      ],
      to: [135 * g, 0],
    },
    {
      c: [
        [190 * g, 0],
        [235 * g, 75],
      ],
      to: [245 * g, 135],
    },
    { q: [255 * g, 360 * l], to: [175 * g, 630 * l] },
    [10, 650 * l],
    { q: [45 * g, 400 * l], to: [0, 150] },
  );
  const underSleeve = path(
    [0, 95],
    {
      c: [
        [35 * g, 150],
        [95 * g, 140],
      ],
      to: [125 * g, 95],
    },
    { q: [140 * g, 65], to: [160 * g, 55] },
    { q: [175 * g, 330 * l], to: [135 * g, 570 * l] },
    [12, 588 * l],
    { q: [42 * g, 360 * l], to: [0, 95] },
  );
  const neckFacing = mirrorHalf(
    path([0, 20], { q: [62 * g, 20], to: backNeck }, along(backNeck, backShoulder, 40), {
      q: [90 * g, 75],
      to: [0, 80],
    }),
  );
  const collarLen = 90 * g + 105;
  const collarHalf = (shrink) =>
    path(
      [0, 0],
      { q: [collarLen * 0.55, 0], to: [collarLen, -25] },
      [collarLen + 30 + 5 * v - shrink, 10 - shrink],
      {
        c: [
          [collarLen * 0.8, 60 - shrink],
          [collarLen * 0.3, 75 - shrink],
        ],
        to: [0, 75 - shrink],
      },
    );
  const hipPocket = path(
    [0, 0],
    [(175 + 5 * v) * g, 0],
    [(175 + 5 * v) * g, 160 - 25],
    { q: [(175 + 5 * v) * g, 160], to: [(175 + 5 * v) * g - 25, 160] },
    [25, 160],
    { q: [0, 160], to: [0, 135] },
  );
  return [
    piece('doublebreasted.front', 'front', '前片', 'Front', 2, front.outline),
    piece('doublebreasted.sideBody', 'front', '腋下片', 'Side panel', 2, closed(sideBody)),
    piece('doublebreasted.back', 'back', '后片', 'Back', 2, back),
    piece('doublebreasted.topSleeve', 'sleeve', '大袖', 'Top sleeve', 2, closed(topSleeve)),
    piece('doublebreasted.underSleeve', 'sleeve', '小袖', 'Under sleeve', 2, closed(underSleeve)),
    piece('doublebreasted.frontFacing', 'other', '挂面', 'Front facing', 2, frontFacing),
    piece('doublebreasted.backNeckFacing', 'other', '后领贴', 'Back neck facing', 1, neckFacing),
    piece('doublebreasted.upperCollar', 'collar', '领面', 'Upper collar', 1, mirrorHalf(collarHalf(0))),
    piece('doublebreasted.underCollar', 'collar', '领底', 'Under collar', 2, collarHalf(3)),
    piece('doublebreasted.hipPocket', 'pocket', '贴袋', 'Patch pocket', 2, hipPocket),
    piece('doublebreasted.breastPocket', 'pocket', '胸贴袋', 'Breast pocket', 1, rect(110 * g, 125)),
  ];
}

/** [design, drafter, kind] as scripts/draft-garments.mjs' GARMENTS. */
export const DESIGNS = [
  ['Blazer', blazer, 'top'],
  ['Waistcoat', waistcoat, 'top'],
  ['ChoreCoat', choreCoat, 'top'],
  ['DoubleBreasted', doubleBreasted, 'top'],
];
