/**
 * Drafted tops: a knit tank top finished with bindings, a raglan sweatshirt (one-piece raglan sleeves whose
 * front and back raglan lines are traced from the body's), a sleeveless princess-seam dress with neck and
 * armhole facings, a princess-seam blouse (the dress's seams with the fronts and back the other way round,
 * sleeves, a stand collar) and a sleeveless zip-front gilet. Our own geometry from standard measurements and ease at the M size (tank top: bust 91 cm,
 * no ease, a knit; sweatshirt: chest 96 cm + 13 cm; dress: bust 90, waist 72, hip 95 cm + 2–4 cm); seam
 * lines in mm, y down, without seam allowance.
 */
import { bodiceHalf, mirrorHalf, path, piece, pocketBag, rect, sleeveHalf } from '../draft-blocks.mjs';

// --- geometry ---------------------------------------------------------------------------------------------

const lerp = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];

export function arcLength(pts) {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
  return s;
}

/**
 * A polyline moved sideways by d towards the point `inside` (each vertex along the mean normal of its two
 * segments): the free edge of a facing that follows a neckline or an armhole.
 */
function offsetToward(pts, d, inside) {
  const normals = pts.map((_, i) => {
    const a = pts[Math.max(0, i - 1)];
    const b = pts[Math.min(pts.length - 1, i + 1)];
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
    return [-(b[1] - a[1]) / len, (b[0] - a[0]) / len];
  });
  const mid = pts[Math.floor(pts.length / 2)];
  const n = normals[Math.floor(pts.length / 2)];
  const sign = (inside[0] - mid[0]) * n[0] + (inside[1] - mid[1]) * n[1] >= 0 ? 1 : -1;
  return pts.map(([x, y], i) => [x + sign * d * normals[i][0], y + sign * d * normals[i][1]]);
}

/**
 * A seam curve traced from one piece onto the piece it is sewn to: the chord a→b goes to a2→b2 and the
 * curve's bow, which cuts into the first piece (the side of `inside`), cuts into the second (`inside2`).
 * The chords should be of equal length; the curve is stretched along its chord if they are not.
 */
function traceSeam(curve, inside, a2, b2, inside2) {
  const [a, b] = [curve[0], curve.at(-1)];
  const frame = (p, q, probe) => {
    const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
    const u = [(q[0] - p[0]) / len, (q[1] - p[1]) / len];
    let n = [-u[1], u[0]];
    if ((probe[0] - p[0]) * n[0] + (probe[1] - p[1]) * n[1] < 0) n = [-n[0], -n[1]];
    return { p, u, n, len };
  };
  const from = frame(a, b, inside);
  const to = frame(a2, b2, inside2);
  return curve.map(([x, y]) => {
    const dx = x - from.p[0];
    const dy = y - from.p[1];
    const s = ((dx * from.u[0] + dy * from.u[1]) / from.len) * to.len;
    const t = dx * from.n[0] + dy * from.n[1];
    return [to.p[0] + s * to.u[0] + t * to.n[0], to.p[1] + s * to.u[1] + t * to.n[1]];
  });
}

// --- tank top ---------------------------------------------------------------------------------------------

/**
 * Half a knit tank top from the centre: a scoop neck of depth nd and half width nw, a strap of width `strap`
 * on a sloping shoulder, an armhole cut deep and well in (`scoop`: how far the curve hugs the strap before
 * swinging out to the side), a side seam flaring a little to the hip and a hem curved up by `tail` at the side.
 * Returns the outline and its neckline and armhole runs.
 */
function tankHalf({ hw, len, nw, nd, strap, ad, scoop, flare, tail }) {
  const sw = nw + strap;
  const sd = strap * 0.38;
  const neck = path([0, nd], {
    c: [
      [nw * 0.72, nd],
      [nw * 0.98, nd * 0.45],
    ],
    to: [nw, 0],
  });
  const arm = path([sw, sd], {
    c: [
      [sw - 4, sd + (ad - sd) * scoop],
      [sw + (hw - sw) * 0.3, ad],
    ],
    to: [hw, ad],
  });
  const rest = path(arm.at(-1), [hw + flare, len - tail], { q: [(hw + flare) * 0.55, len], to: [0, len] });
  return { outline: neck.concat(arm, rest.slice(1)), neck, arm };
}

function tankTop({ g, l, v }) {
  const common = {
    hw: 228 * g,
    len: 640 * l + 15 * v,
    nw: 92 + 4 * v,
    strap: 42 + 9 * v,
    ad: 245 * l,
    flare: 15 + 6 * v,
    tail: 8 + 14 * v,
  };
  const front = tankHalf({ ...common, nd: 135 + 22 * v, scoop: 0.55 });
  const back = tankHalf({ ...common, nd: 45 + 12 * v, scoop: 0.7 });
  // Knit bindings are cut shorter than the edge they finish (stretched on): about 85 % of it.
  const neckEdge = 2 * (arcLength(front.neck) + arcLength(back.neck));
  const armEdge = arcLength(front.arm) + arcLength(back.arm);
  return [
    piece('tanktop.front', 'front', '前片', 'Front', 1, mirrorHalf(front.outline)),
    piece('tanktop.back', 'back', '后片', 'Back', 1, mirrorHalf(back.outline)),
    piece('tanktop.neckBinding', 'collar', '领口包边', 'Neck binding', 1, rect(neckEdge * 0.85, 32)),
    piece('tanktop.armBinding', 'cuff', '袖窿包边', 'Armhole binding', 2, rect(armEdge * 0.88, 32)),
  ];
}

// --- raglan sweatshirt ------------------------------------------------------------------------------------

/**
 * Half a raglan body from the centre: the neckline from the centre (depth nd) to the raglan point r on it,
 * the raglan line straight from there and curving into the underarm at (hw, ad) (`hollow`: how far back
 * along the chord the underarm curve starts), the side seam, a straight hem. Returns the outline and the
 * neckline and raglan runs.
 */
function raglanBody({ hw, len, nd, r, ad, hollow }) {
  const under = [hw, ad];
  const neck = path([0, nd], { q: [r[0] * 0.85, nd], to: r });
  const raglan = path(r, {
    c: [lerp(r, under, 0.45), [hw - (hw - r[0]) * hollow, ad - 2]],
    to: under,
  });
  const rest = path(under, [hw - 8, len], [0, len]);
  return { outline: neck.concat(raglan.slice(1), rest.slice(1)), neck, raglan };
}

function raglanSweatshirt({ g, l, v }) {
  const hw = 272 * g;
  // The neck grows about half as fast as the chest between sizes.
  const gn = 1 + (g - 1) * 0.5;
  const len = 600 * l;
  const ad = 255 * l;
  const front = raglanBody({ hw, len, ad, nd: 92 + 7 * v, r: [74 * gn, 46], hollow: 0.36 });
  const back = raglanBody({ hw, len, ad, nd: 24, r: [80 * gn, 14], hollow: 0.26 });

  // The sleeve, with its centre (the shoulder line) at x = 0, front to the left: the neck edge between the
  // front and back raglan points, the raglan lines traced from the body (same lengths, the underarm hollow
  // cut into the sleeve), both underarms level so the underarm seam's two edges match, then to the wrist.
  const topF = [-38 * gn, 20];
  const topB = [34 * gn, 6];
  const bwB = 192 * g;
  const chordB = arcLength([back.raglan[0], back.raglan.at(-1)]);
  const chordF = arcLength([front.raglan[0], front.raglan.at(-1)]);
  const under = topB[1] + Math.sqrt(chordB ** 2 - (bwB - topB[0]) ** 2);
  const bwF = -topF[0] + Math.sqrt(chordF ** 2 - (under - topF[1]) ** 2);
  const sl = (640 + 15 * v) * l;
  const ww = 112 * g;
  const inside = [0, under + 40];
  const raglanF = traceSeam(front.raglan, [0, ad], topF, [-bwF, under], inside);
  const raglanB = traceSeam(back.raglan, [0, ad], topB, [bwB, under], inside);
  const sleeveNeck = path(topF, { q: [0, 4], to: topB });
  const sleeve = sleeveNeck.concat(
    raglanB.slice(1),
    [
      [ww, sl],
      [-ww, sl],
    ],
    raglanF.slice(1).reverse().slice(0, -1),
  );

  // Rib bands are cut shorter than the edge they are sewn to, and folded: their cut height is twice the band.
  const neckEdge = 2 * (arcLength(front.neck) + arcLength(back.neck) + arcLength(sleeveNeck));
  return [
    piece('raglansweatshirt.front', 'front', '前片', 'Front', 1, mirrorHalf(front.outline)),
    piece('raglansweatshirt.back', 'back', '后片', 'Back', 1, mirrorHalf(back.outline)),
    piece('raglansweatshirt.sleeve', 'sleeve', '插肩袖', 'Raglan sleeve', 2, sleeve),
    piece(
      'raglansweatshirt.neckband',
      'collar',
      '领口罗纹',
      'Neckband',
      1,
      rect(neckEdge * 0.82, 50 + 5 * v),
    ),
    piece('raglansweatshirt.cuff', 'cuff', '袖口罗纹', 'Cuff', 2, rect(200 * g, 120 + 10 * v)),
    piece(
      'raglansweatshirt.hemband',
      'waistband',
      '下摆罗纹',
      'Hem band',
      1,
      rect(4 * (hw - 8) * 0.82, 120 + 10 * v),
    ),
  ];
}

// --- princess dress ---------------------------------------------------------------------------------------

/**
 * Half a fitted sleeveless dress from the centre, split by a princess seam from the armhole. The armhole
 * princess is a dart turned into a seam: the two panels leave the armhole `dartTop` apart (the dart's opening,
 * cut out of the armhole), meet at the apex (the bust point in front, the shoulder blade behind), part again
 * by the waist dart `dart` at the waist, meet at the hip and flare out by `flare` each at the hem. The centre
 * edge is shaped in by `centreIn` at the waist (a centre-back seam). Returns both panels and the runs the
 * facings follow: neckline, shoulder, armhole (with the dart closed, as the facing is cut in one piece).
 */
function princessHalf(o) {
  const { nw, nd, sw, sd, hw, ad, p, dartTop, apex, waistY, seamX, dart, hipY, len, flare, centreIn = 0 } = o;
  const neck = path([0, nd], {
    c: [
      [nw * 0.7, nd],
      [nw * 0.95, nd * 0.5],
    ],
    to: [nw, 0],
  });
  const arm = path([sw, sd], {
    c: [
      [sw - 10, sd + (ad - sd) * 0.55],
      [sw + (hw - sw) * 0.25, ad - 4],
    ],
    to: [hw, ad],
  });
  // Split the armhole at the height p (interpolated between the curve's points).
  let k = 1;
  while (k < arm.length - 1 && arm[k][1] < p) k++;
  const at = lerp(arm[k - 1], arm[k], (p - arm[k - 1][1]) / (arm[k][1] - arm[k - 1][1]));
  const upper = arm.slice(0, k).concat([at]);
  const lower = [at].concat(arm.slice(k));
  // Opening the dart turns the side panel's armhole about the apex by the dart's angle, towards the side, so
  // that both dart legs (the two seams from the armhole to the apex) keep one length.
  const angle = dartTop / Math.hypot(at[0] - apex[0], at[1] - apex[1]);
  const turn = (q, a) => {
    const [dx, dy] = [q[0] - apex[0], q[1] - apex[1]];
    return [apex[0] + dx * Math.cos(a) - dy * Math.sin(a), apex[1] + dx * Math.sin(a) + dy * Math.cos(a)];
  };
  const ahead = along(lower, dartTop);
  const sign =
    Math.hypot(...turn(at, angle).map((c, i) => c - ahead[i])) <
    Math.hypot(...turn(at, -angle).map((c, i) => c - ahead[i]))
      ? 1
      : -1;
  const sideArm = lower.map((q) => turn(q, sign * angle));
  const hipX = seamX + 10;
  const seam = (start, sideOf) =>
    path(
      start,
      {
        c: [lerp(start, apex, 0.45), [apex[0], apex[1] - 45]],
        to: apex,
      },
      {
        c: [
          [apex[0], apex[1] + 60],
          [seamX + sideOf * dart * 0.5, waistY - 60],
        ],
        to: [seamX + sideOf * dart * 0.5, waistY],
      },
      {
        c: [
          [seamX + sideOf * dart * 0.5, waistY + 70],
          [hipX, hipY - 70],
        ],
        to: [hipX, hipY],
      },
      { q: [hipX - sideOf * flare * 0.12, (hipY + len) / 2], to: [hipX - sideOf * flare, len] },
    );
  const centreSeam = seam(at, -1);
  const sideSeam = seam(sideArm[0], 1);
  const centreEdge = centreIn
    ? [
        [centreIn * 0.6, hipY],
        [centreIn, waistY],
        [centreIn * 0.5, ad],
      ]
    : [];
  const centre = neck.concat(upper, centreSeam.slice(1), [[0, len + 5]], centreEdge);
  const { waistSide, hipSide, sideFlare } = o;
  const sideEdgeFrom = (under) =>
    path(
      under,
      {
        c: [
          [under[0] - 4, under[1] + 60],
          [waistSide, waistY - 70],
        ],
        to: [waistSide, waistY],
      },
      {
        c: [
          [waistSide, waistY + 80],
          [hipSide, hipY - 80],
        ],
        to: [hipSide, hipY],
      },
      { q: [hipSide + sideFlare * 0.1, (hipY + len) / 2], to: [hipSide + sideFlare, len - 10] },
      { q: [(hipSide + sideFlare + hipX - flare) / 2, len + 2], to: sideSeam.at(-1) },
    );
  const side = sideArm.concat(sideEdgeFrom(sideArm.at(-1)).slice(1), sideSeam.slice(1, -1).reverse());
  return { centre, side, neck, arm, sideEdge: sideEdgeFrom([hw, ad]) };
}

/** A point `d` along a polyline from its start. */
function along(pts, d) {
  let left = d;
  for (let i = 1; i < pts.length; i++) {
    const seg = Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
    if (seg >= left) return lerp(pts[i - 1], pts[i], left / seg);
    left -= seg;
  }
  return pts.at(-1);
}

/**
 * A facing following the edge `edge` (a neckline or an armhole) `width` wide into the body: its ends run
 * along the seams that meet the edge (`startSeam`, `endSeam`: polylines leaving the edge's ends), its free
 * edge is the edge moved inwards, trimmed where it would run past those seams.
 */
function facing(edge, width, inside, startSeam, endSeam) {
  const free = offsetToward(edge, width, inside);
  const a = startSeam ? along(startSeam, width) : free[0];
  const b = endSeam ? along(endSeam, width) : free.at(-1);
  // Drop free-edge points beyond the chord a–b's ends so the ends meet the seams cleanly.
  const keep = free.slice(1, -1).filter((q) => {
    const t =
      ((q[0] - a[0]) * (b[0] - a[0]) + (q[1] - a[1]) * (b[1] - a[1])) /
      ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2);
    return t > 0.03 && t < 0.97;
  });
  return edge.concat([b], keep.reverse(), [a]);
}

/**
 * A sleeveless dress's neck and armhole facings off its front and back halves (`neck`, `arm` runs): the front
 * neck facing whole (its ends put on the centre line), the others as halves. `shoulder(h)` and `side(h)` are the
 * seams that meet the runs' ends.
 */
export function dressFacings(front, back, { neckWidth, armWidth, shoulder, side }) {
  const neck = (h) => facing(h.neck, neckWidth, [0, 400], null, shoulder(h));
  const arm = (h) => facing(h.arm, armWidth, [0, 300], shoulder(h).reverse(), side(h));
  const frontNeck = neck(front);
  frontNeck[0][0] = 0;
  frontNeck[frontNeck.length - 1][0] = 0;
  return { frontNeck: mirrorHalf(frontNeck), backNeck: neck(back), frontArm: arm(front), backArm: arm(back) };
}

function princessDress({ g, l, v }) {
  const len = (1000 + 25 * v) * l;
  const gn = 1 + (g - 1) * 0.5;
  const common = {
    sw: 165 * g,
    sd: 42,
    ad: 225 * l,
    waistY: 400 * l,
    hipY: 600 * l,
    len,
    flare: 35 + 15 * v,
    sideFlare: 45 + 15 * v,
  };
  const front = princessHalf({
    ...common,
    nw: 78 * gn,
    nd: 110 + 18 * v,
    hw: 240 * g,
    p: 105 * l,
    dartTop: 22 * g,
    apex: [95 * g, 255 * l],
    seamX: 90 * g,
    dart: 36 * g,
    waistSide: 222 * g,
    hipSide: 248 * g,
  });
  const back = princessHalf({
    ...common,
    nw: 80 * gn,
    nd: 22 + 6 * v,
    hw: 232 * g,
    p: 100 * l,
    dartTop: 12 * g,
    apex: [92 * g, 190 * l],
    seamX: 86 * g,
    dart: 26 * g,
    waistSide: 222 * g,
    hipSide: 244 * g,
    centreIn: 10,
  });
  const facings = dressFacings(front, back, {
    neckWidth: 65 + 3 * v,
    armWidth: 50,
    shoulder: (h) => [h.neck.at(-1), h.arm[0]],
    side: (h) => h.sideEdge,
  });
  return [
    piece('princessdress.centreFront', 'front', '前中片', 'Centre front', 1, mirrorHalf(front.centre)),
    piece('princessdress.sideFront', 'front', '前侧片', 'Side front', 2, front.side),
    piece('princessdress.centreBack', 'back', '后中片', 'Centre back', 2, back.centre),
    piece('princessdress.sideBack', 'back', '后侧片', 'Side back', 2, back.side),
    piece('princessdress.frontNeckFacing', 'other', '前领口贴边', 'Front neck facing', 1, facings.frontNeck),
    piece('princessdress.backNeckFacing', 'other', '后领口贴边', 'Back neck facing', 2, facings.backNeck),
    piece('princessdress.frontArmFacing', 'other', '前袖窿贴边', 'Front armhole facing', 2, facings.frontArm),
    piece('princessdress.backArmFacing', 'other', '后袖窿贴边', 'Back armhole facing', 2, facings.backArm),
  ];
}

/**
 * A hip-length princess-seam blouse: the same seams as the dress the other way round (centre front in two
 * buttoned halves, centre back cut on the fold), short set-in sleeves, a stand collar and front facings.
 */
function princessBlouse({ g, l, v }) {
  const len = (640 + 15 * v) * l;
  const gn = 1 + (g - 1) * 0.5;
  const ext = 18;
  const common = {
    sw: 160 * g,
    sd: 40,
    ad: 220 * l,
    waistY: 395 * l,
    hipY: 580 * l,
    len,
    flare: 10 + 5 * v,
    sideFlare: 15 + 5 * v,
  };
  const front = princessHalf({
    ...common,
    nw: 72 * gn,
    nd: 75 + 8 * v,
    hw: 245 * g,
    p: 120 * l,
    dartTop: 26 * g,
    apex: [98 * g, 250 * l],
    seamX: 95 * g,
    dart: 30 * g,
    waistSide: 228 * g,
    hipSide: 250 * g,
  });
  const back = princessHalf({
    ...common,
    nw: 74 * gn,
    nd: 20 + 4 * v,
    hw: 236 * g,
    p: 115 * l,
    dartTop: 10 * g,
    apex: [90 * g, 200 * l],
    seamX: 88 * g,
    dart: 22 * g,
    waistSide: 226 * g,
    hipSide: 246 * g,
  });
  const hem = len + 5;
  // The centre front half with its button extension: the centre line moved out by `ext`.
  const centreFront = [[-ext, front.neck[0][1]], ...front.centre, [-ext, hem]];
  const snp = front.neck.at(-1);
  const onShoulder = lerp(
    snp,
    front.arm[0],
    35 / Math.hypot(front.arm[0][0] - snp[0], front.arm[0][1] - snp[1]),
  );
  const frontFacing = [
    [-ext, front.neck[0][1]],
    ...front.neck,
    ...path(onShoulder, { q: [60, 150 * l], to: [55, 260 * l] }),
    [55, hem],
    [-ext, hem],
  ];
  const neckLen = arcLength(front.neck) + arcLength(back.neck) + ext;
  const collar = mirrorHalf(
    path([0, 0], { q: [neckLen * 0.6, 0], to: [neckLen, -10 - 2 * v] }, [neckLen - 4, 26], {
      q: [neckLen * 0.5, 36],
      to: [0, 36],
    }),
  );
  const sleeve = mirrorHalf(sleeveHalf({ ch: 115 * l, bw: 165 * g, sl: (230 + 20 * v) * l, ww: 150 * g }));
  return [
    piece('princessblouse.centreFront', 'front', '前中片', 'Centre front', 2, centreFront),
    piece('princessblouse.sideFront', 'front', '前侧片', 'Side front', 2, front.side),
    piece('princessblouse.centreBack', 'back', '后中片', 'Centre back', 1, mirrorHalf(back.centre)),
    piece('princessblouse.sideBack', 'back', '后侧片', 'Side back', 2, back.side),
    piece('princessblouse.sleeve', 'sleeve', '袖子', 'Sleeve', 2, sleeve),
    piece('princessblouse.collar', 'collar', '立领', 'Stand collar', 2, collar),
    piece('princessblouse.frontFacing', 'other', '挂面', 'Front facing', 2, frontFacing),
  ];
}

// --- gilet ------------------------------------------------------------------------------------------------

/**
 * A zip-front gilet (body warmer): sleeveless, the armholes cut deep and finished with bindings, front halves
 * meeting at a zip, a back cut on the fold and dropped at the hem, a stand collar, zipped welt pockets with
 * their bags. Chest 100 cm + 12 cm ease at M.
 */
function gilet({ g, l, v }) {
  const common = { hw: 280 * g, len: (650 + 10 * v) * l, sw: 165 * g, sd: 48, ad: (275 + 5 * v) * l };
  const front = bodiceHalf({ ...common, nw: 85 * g, nd: 80 + 6 * v, flare: 8, tail: 10 });
  const back = bodiceHalf({
    ...common,
    len: common.len + 25 + 5 * v,
    nw: 85 * g,
    nd: 22,
    flare: 8,
    tail: 30,
  });
  const collarLen = 2 * 85 * g + 140 + 20 * v;
  const collar = path([0, 0], { q: [collarLen * 0.5, 6], to: [collarLen, 0] }, [collarLen, 65], [0, 65]);
  // The armhole, front and back, read off the two bodice halves: from the shoulder point (sw, sd) to the side
  // (hw, ad), both vertices of bodiceHalf's path.
  const armOf = (h) =>
    h.slice(
      h.findIndex((q) => q[0] === common.sw),
      h.findIndex((q) => q[0] === common.hw) + 1,
    );
  const armEdge = arcLength(armOf(front)) + arcLength(armOf(back));
  const welt = rect((160 + 5 * v) * g, 36);
  const bag = pocketBag((175 + 5 * v) * g, 150, 205, 90 * g);
  return [
    piece('gilet.front', 'front', '前片', 'Front', 2, front),
    piece('gilet.back', 'back', '后片', 'Back', 1, mirrorHalf(back)),
    piece('gilet.collar', 'collar', '立领', 'Stand collar', 2, collar),
    piece('gilet.armBinding', 'cuff', '袖窿包边', 'Armhole binding', 2, rect(armEdge, 40)),
    piece('gilet.welt', 'pocket', '袋牙', 'Welt', 4, welt),
    piece('gilet.pocketBag', 'pocket', '袋布', 'Pocket bag', 4, bag),
  ];
}

/** [design, drafter, kind] as scripts/draft-garments.mjs' GARMENTS. */
export const DESIGNS = [
  ['TankTop', tankTop, 'top'],
  ['RaglanSweatshirt', raglanSweatshirt, 'top'],
  ['PrincessDress', princessDress, 'top'],
  ['PrincessBlouse', princessBlouse, 'top'],
  ['Gilet', gilet, 'top'],
];
