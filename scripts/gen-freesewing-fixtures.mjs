/**
 * Generates test/fixtures/freesewing/pieces.json: real cut-piece outlines drafted by FreeSewing (MIT), as
 * simplified polygons in mm with their cut count, on-fold flag, grain angle and a ground-truth garment part.
 *
 * Not part of the project: FreeSewing is not a dependency, and neither the build nor the tests run this file
 * (the tests read only the committed JSON). Run it in a scratch folder:
 *
 *   mkdir -p /tmp/fs && cd /tmp/fs && npm init -y
 *   npm install --legacy-peer-deps \
 *     @freesewing/core@4.10.2 @freesewing/core-plugins@4.10.2 @freesewing/plugin-transform@4.10.2 \
 *     @freesewing/config@4.10.2 @freesewing/models@4.10.2 @freesewing/library@4.10.2 \
 *     @freesewing/plugin-bust@4.10.2 @freesewing/plugin-flip@4.10.2 @freesewing/snapseries@4.10.0 \
 *     @freesewing/plugin-ringsector@4.10.2 @freesewing/plugin-path-utils@4.10.2 \
 *     @freesewing/{teagan,brian,aaron,simon,bella,penelope,diana,bent,titan,paco,carlton,carlita}@4.10.2 \
 *     @freesewing/{hugo,huey,yuri,sven,jaeger,wahid,charlie,cornelius,lily,onyx,breanna,simone}@4.10.2 \
 *     @freesewing/{tristan,sophie,walburga,noble,bibi,sarah}@4.10.2 @freesewing/{shin,cathrin}@4.10.1
 *   cp /path/to/atelier/scripts/{gen-freesewing-fixtures,draft-blocks}.mjs .
 *   node gen-freesewing-fixtures.mjs /path/to/atelier/test/fixtures/freesewing/pieces.json
 *
 * An optional second argument drafts other sizes of @freesewing/models (e.g. cisFemaleAdult28,cisMaleAdult50)
 * instead of the four committed ones.
 *
 * Designs: every FreeSewing garment design at 4.10.x that npm gives by exact name (the registry's search
 * endpoint does not answer here; the names probed are in test/fixtures/freesewing/README.md) whose pieces are
 * the tool's parts. Skipped, with why, in that README: accessories, hats, toys, one-piece garments (a wrap, a
 * tunic, a cloak, a circle skirt, Jane's shift: no front and back to tell apart). Where a piece's outline is
 * not its part's `seam` path (Noble, Bibi, Cathrin, Sarah), OUTLINES lists the paths that trace it.
 *
 * (The script and its polygon helpers, draft-blocks.mjs, are copied because Node resolves `@freesewing/*` next
 * to the importing file.) Packaging traps (research/garment.md §1.3): core-plugins, models, simon and tristan
 * import undeclared packages (listed above; plugin-ringsector and noble for tristan); titan
 * and paco peer-depend on a snapseries version that does not exist (hence --legacy-peer-deps and 4.10.0);
 * `complete: true` is needed for the cut list; cut-on-fold parts are drafted as halves and are unfolded here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { round, simplify } from './draft-blocks.mjs';

/** Douglas–Peucker tolerance, mm: 0.8 keeps a neckline's shape at the resolutions identify works at. */
const DP_MM = 0.8;
const SA = 10; // seam allowance, mm (the drafts use it; the outline exported is the seam line)
const SIZES = process.argv[3]?.split(',') ?? [
  'cisMaleAdult42',
  'cisFemaleAdult34',
  'cisFemaleAdult44',
  'cisMaleAdult36',
];
/** Every design is its own fold of the leave-one-design-out evaluation (test/garment/piece-model.test.ts). */
const DESIGNS = [
  // [package, export, kind: a top is worn from the shoulders (a dress, a one-piece too), a bottom from the waist]
  ['teagan', 'Teagan', 'top'],
  ['brian', 'Brian', 'top'],
  ['aaron', 'Aaron', 'top'],
  ['simon', 'Simon', 'top'],
  ['bella', 'Bella', 'top'],
  ['penelope', 'Penelope', 'bottom'],
  ['diana', 'Diana', 'top'],
  ['bent', 'Bent', 'top'],
  ['titan', 'Titan', 'bottom'],
  ['paco', 'Paco', 'bottom'],
  ['carlton', 'Carlton', 'top'],
  ['carlita', 'Carlita', 'top'],
  ['hugo', 'Hugo', 'top'],
  ['huey', 'Huey', 'top'],
  ['yuri', 'Yuri', 'top'],
  ['sven', 'Sven', 'top'],
  ['jaeger', 'Jaeger', 'top'],
  ['wahid', 'Wahid', 'top'],
  ['charlie', 'Charlie', 'bottom'],
  ['cornelius', 'Cornelius', 'bottom'],
  ['shin', 'Shin', 'bottom'],
  ['lily', 'Lily', 'bottom'],
  ['onyx', 'Onyx', 'top'],
  ['breanna', 'Breanna', 'top'],
  ['simone', 'Simone', 'top'],
  ['tristan', 'Tristan', 'top'],
  ['sophie', 'Sophie', 'top'],
  ['walburga', 'Walburga', 'top'],
  ['noble', 'Noble', 'top'],
  ['bibi', 'Bibi', 'top'],
  ['cathrin', 'Cathrin', 'top'],
  ['sarah', 'Sarah', 'bottom'],
];

/**
 * Ground truth: FreeSewing part → [part label, Chinese layer name, English layer name]. Labels are the tool's
 * parts, with 'sleeve' for either sleeve (left/right is a convention for a mirrored pair, checked apart).
 */
const TRUTH = {
  'teagan.front': ['front', '前片', 'Front'],
  'teagan.back': ['back', '后片', 'Back'],
  'teagan.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'brian.front': ['front', '前片', 'Front'],
  'brian.back': ['back', '后片', 'Back'],
  'library.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'aaron.front': ['front', '前片', 'Front'],
  'aaron.back': ['back', '后片', 'Back'],
  'aaron.armBinding': ['cuff', '袖窿包边', 'Armhole binding'],
  'aaron.neckBinding': ['collar', '领口包边', 'Neck binding'],
  'simon.back': ['back', '后片', 'Back'],
  'simon.frontRight': ['front', '右前片', 'Front right'],
  'simon.frontLeft': ['front', '左前片', 'Front left'],
  'simon.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'simon.yoke': ['other', '过肩', 'Yoke'],
  'simon.collar': ['collar', '翻领', 'Collar'],
  'simon.collarStand': ['collar', '领座', 'Collar stand'],
  'simon.cuff': ['cuff', '袖克夫', 'Cuff'],
  'simon.sleevePlacketOverlap': ['other', '袖衩大片', 'Sleeve placket overlap'],
  'simon.sleevePlacketUnderlap': ['other', '袖衩小片', 'Sleeve placket underlap'],
  'bella.back': ['back', '后片', 'Back'],
  'bella.frontSideDart': ['front', '前片', 'Front'],
  'bella.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'penelope.back': ['back', '后裙片', 'Back skirt'],
  'penelope.front': ['front', '前裙片', 'Front skirt'],
  'diana.front': ['front', '前片', 'Front'],
  'diana.back': ['back', '后片', 'Back'],
  'diana.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'library.topsleeve': ['sleeve', '大袖', 'Top sleeve'],
  'library.undersleeve': ['sleeve', '小袖', 'Under sleeve'],
  'titan.front': ['front', '前裤片', 'Front leg'],
  'titan.back': ['back', '后裤片', 'Back leg'],
  'paco.front': ['front', '前裤片', 'Front leg'],
  'paco.back': ['back', '后裤片', 'Back leg'],
  'paco.cuff': ['cuff', '裤脚口', 'Leg cuff'],
  'paco.waistband': ['waistband', '腰头', 'Waistband'],
  // Carlton: only its fabric pieces (not lining or canvas); the tail is the back's lower part, the half belt
  // sits at the waist, welts and flaps belong to pockets, the front facing is neither front nor back.
  'carlton.front': ['front', '前片', 'Front'],
  'carlton.frontFacing': ['other', '挂面', 'Front facing'],
  'carlton.back': ['back', '后片', 'Back'],
  'carlton.tail': ['back', '后下摆', 'Tail'],
  'carlton.topsleeve': ['sleeve', '大袖', 'Top sleeve'],
  'carlton.undersleeve': ['sleeve', '小袖', 'Under sleeve'],
  'carlton.belt': ['waistband', '腰带', 'Belt'],
  'carlton.collarStand': ['collar', '领座', 'Collar stand'],
  'carlton.collar': ['collar', '领面', 'Collar'],
  'carlton.cuffFacing': ['cuff', '袖口贴边', 'Cuff facing'],
  'carlton.pocket': ['pocket', '口袋', 'Pocket'],
  'carlton.pocketFlap': ['pocket', '袋盖', 'Pocket flap'],
  'carlton.pocketLining': ['pocket', '袋布', 'Pocket lining'],
  'carlton.chestPocketWelt': ['pocket', '胸袋嵌条', 'Chest pocket welt'],
  'carlton.chestPocketBag': ['pocket', '胸袋布', 'Chest pocket bag'],
  'carlton.innerPocketWelt': ['pocket', '里袋嵌条', 'Inner pocket welt'],
  'carlton.innerPocketTab': ['other', '里袋襻', 'Inner pocket tab'],
  // Carlita (Carlton for womenswear): princess seams; the side panel is a side front (front).
  'carlita.front': ['front', '前片', 'Front'],
  'carlita.frontFacing': ['other', '挂面', 'Front facing'],
  'carlita.side': ['front', '前侧片', 'Side front'],
  'carlita.back': ['back', '后片', 'Back'],
  // Hugo, Huey, Yuri, Sven: hoodies and a sweatshirt (Hugo's and Yuri's hoods are library's two-piece-plus-strip
  // hood); ribbing hem bands are waistbands, ribbing cuffs cuffs; a pocket's facing belongs to the pocket.
  'hugo.front': ['front', '前片', 'Front'],
  'hugo.back': ['back', '后片', 'Back'],
  'hugo.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'hugo.pocket': ['pocket', '袋鼠兜', 'Kangaroo pocket'],
  'hugo.pocketFacing': ['pocket', '袋口贴边', 'Pocket facing'],
  'library.hoodSide': ['hood', '帽侧片', 'Hood side'],
  'library.hoodCenter': ['hood', '帽中片', 'Hood centre'],
  'hugo.waistband': ['waistband', '下摆罗纹', 'Hem band'],
  'hugo.cuff': ['cuff', '袖口罗纹', 'Cuff'],
  'hugo.neckBinding': ['collar', '领口包边', 'Neck binding'],
  'huey.front': ['front', '前片', 'Front'],
  'huey.back': ['back', '后片', 'Back'],
  'huey.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'huey.pocket': ['pocket', '口袋', 'Pocket'],
  'huey.hood': ['hood', '帽子', 'Hood'],
  'huey.waistband': ['waistband', '下摆罗纹', 'Hem band'],
  'huey.cuff': ['cuff', '袖口罗纹', 'Cuff'],
  // Yuri's gusset is a side insert under the overlapping front: neither front nor back.
  'yuri.front': ['front', '前片', 'Front'],
  'yuri.back': ['back', '后片', 'Back'],
  'yuri.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'yuri.gusset': ['other', '插片', 'Gusset'],
  'sven.front': ['front', '前片', 'Front'],
  'sven.back': ['back', '后片', 'Back'],
  'sven.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'sven.cuff': ['cuff', '袖口罗纹', 'Cuff'],
  'sven.waistband': ['waistband', '下摆罗纹', 'Hem band'],
  // Jaeger (jacket) and Wahid (waistcoat): fabric pieces only; Jaeger's side panel is a side front, as Carlita's.
  'jaeger.front': ['front', '前片', 'Front'],
  'jaeger.frontFacing': ['other', '挂面', 'Front facing'],
  'jaeger.side': ['front', '前侧片', 'Side front'],
  'jaeger.back': ['back', '后片', 'Back'],
  'jaeger.collarStand': ['collar', '领座', 'Collar stand'],
  'jaeger.collar': ['collar', '领面', 'Collar'],
  'jaeger.pocket': ['pocket', '口袋', 'Pocket'],
  'jaeger.chestPocketWelt': ['pocket', '胸袋嵌条', 'Chest pocket welt'],
  'jaeger.innerPocketWelt': ['pocket', '里袋嵌条', 'Inner pocket welt'],
  'jaeger.topsleeve': ['sleeve', '大袖', 'Top sleeve'],
  'jaeger.undersleeve': ['sleeve', '小袖', 'Under sleeve'],
  'wahid.front': ['front', '前片', 'Front'],
  'wahid.back': ['back', '后片', 'Back'],
  'wahid.frontFacing': ['other', '挂面', 'Front facing'],
  'wahid.pocketWelt': ['pocket', '袋口嵌条', 'Pocket welt'],
  'wahid.pocketFacing': ['pocket', '袋口贴边', 'Pocket facing'],
  // Charlie (chinos), Cornelius (breeches), Shin (swim trunks), Lily (leggings): legs are front/back; fly pieces
  // and belt loops (one strip cut into loops) are other; leg bands at the knee are cuffs.
  'charlie.front': ['front', '前裤片', 'Front leg'],
  'charlie.back': ['back', '后裤片', 'Back leg'],
  'charlie.waistband': ['waistband', '腰头', 'Waistband'],
  'charlie.frontPocketFacing': ['pocket', '前袋口贴边', 'Front pocket facing'],
  'charlie.backPocketFacing': ['pocket', '后袋口贴边', 'Back pocket facing'],
  'charlie.backPocketWelt': ['pocket', '后袋嵌条', 'Back pocket welt'],
  'charlie.flyFacing': ['other', '门襟', 'Fly facing'],
  'charlie.flyExtension': ['other', '里襟', 'Fly extension'],
  'charlie.beltLoops': ['other', '串带', 'Belt loops'],
  'cornelius.front': ['front', '前裤片', 'Front leg'],
  'cornelius.back': ['back', '后裤片', 'Back leg'],
  'cornelius.legband': ['cuff', '裤脚口', 'Leg band'],
  'cornelius.waistband': ['waistband', '腰头', 'Waistband'],
  'cornelius.pocketFacing': ['pocket', '袋口贴边', 'Pocket facing'],
  'cornelius.zipperguard': ['other', '拉链挡布', 'Zipper guard'],
  'shin.front': ['front', '前裤片', 'Front'],
  'shin.back': ['back', '后裤片', 'Back'],
  'shin.waistband': ['waistband', '腰头', 'Waistband'],
  'lily.front': ['front', '前裤片', 'Front leg'],
  'lily.back': ['back', '后裤片', 'Back leg'],
  'lily.waistband': ['waistband', '腰头', 'Waistband'],
  // Onyx (one-piece suit): a raglan sleeve is a sleeve; the zipper guard and crotch gusset are other.
  'onyx.front': ['front', '前片', 'Front'],
  'onyx.back': ['back', '后片', 'Back'],
  'onyx.raglanSleeve': ['sleeve', '插肩袖', 'Raglan sleeve'],
  'onyx.neckband': ['collar', '领口罗纹', 'Neckband'],
  'onyx.zipperGuard': ['other', '拉链挡布', 'Zipper guard'],
  'onyx.crotchGusset': ['other', '裆布', 'Crotch gusset'],
  // Bodices: Breanna (block), Tristan (princess seams: inside and outside panels), Sophie, Walburga.
  'breanna.front': ['front', '前片', 'Front'],
  'breanna.back': ['back', '后片', 'Back'],
  'breanna.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'tristan.frontInside': ['front', '前中片', 'Centre front'],
  'tristan.frontOutside': ['front', '前侧片', 'Side front'],
  'tristan.backInside': ['back', '后中片', 'Centre back'],
  'tristan.backOutside': ['back', '后侧片', 'Side back'],
  'sophie.frontPanel': ['front', '前片', 'Front'],
  'sophie.backPanel': ['back', '后片', 'Back'],
  'walburga.front': ['front', '前片', 'Front'],
  'walburga.back': ['back', '后片', 'Back'],
  // Noble: a princess-seam bodice (the inside panels are the centre front and back, as Tristan's).
  'noble.frontInside': ['front', '前中片', 'Centre front'],
  'noble.frontOutside': ['front', '前侧片', 'Side front'],
  'noble.backInside': ['back', '后中片', 'Centre back'],
  'noble.backOutside': ['back', '后侧片', 'Side back'],
  // Bibi (a knit top block on Brian's): its neck binding is ribbing, as Onyx's neckband.
  'bibi.front': ['front', '前片', 'Front'],
  'bibi.back': ['back', '后片', 'Back'],
  'bibi.sleeve': ['sleeve', '袖子', 'Sleeve'],
  'bibi.neckBinding': ['collar', '领口罗纹', 'Neckband'],
  // Cathrin (an underbust corset in 13 panels, its default): the first three panel lines are the front half
  // (the side seam is at the middle of the drafting), panel 1 split into a centre front on the fold and 1b.
  'cathrin.panel1a': ['front', '前中片', 'Centre front'],
  'cathrin.panel1b': ['front', '前片', 'Front panel'],
  'cathrin.panel2': ['front', '前片', 'Front panel'],
  'cathrin.panel3': ['front', '前侧片', 'Side front'],
  'cathrin.panel4': ['back', '后侧片', 'Side back'],
  'cathrin.panel5': ['back', '后片', 'Back panel'],
  'cathrin.panel6': ['back', '后中片', 'Centre back'],
  // Sarah (a skirt block): front and back drafted whole.
  'sarah.front': ['front', '前裙片', 'Front skirt'],
  'sarah.back': ['back', '后裙片', 'Back skirt'],
};

/**
 * Parts whose outline is not their `seam` path: the pieces the part cuts, each traced by the paths listed, in
 * order round the outline (a path is reversed where it runs the other way). `cut` and `onFold` replace the cut
 * list's where the part cuts two pieces with one entry (Cathrin's panel 1: 1a once on the fold, 1b twice).
 */
const OUTLINES = {
  'noble.backInside': [{ paths: ['insideSeam'] }],
  'noble.backOutside': [{ paths: ['outsideSeam'] }],
  'bibi.front': [{ paths: ['centerLine', 'hem', 'sideSeam', 'armhole', 'shoulder', 'frontNeck'] }],
  'bibi.back': [{ paths: ['centerLine', 'hem', 'sideSeam', 'armhole', 'shoulder', 'backNeck'] }],
  'cathrin.panel1': [
    { name: 'cathrin.panel1a', paths: ['panel1a'], cut: 1, onFold: true },
    { name: 'cathrin.panel1b', paths: ['panel1b'], cut: 2 },
  ],
  'cathrin.panel2': [{ paths: ['panel2'] }],
  'cathrin.panel3': [{ paths: ['panel3'] }],
  'cathrin.panel4': [{ paths: ['panel4'] }],
  'cathrin.panel5': [{ paths: ['panel5'] }],
  'cathrin.panel6': [{ paths: ['panel6'] }],
  'sarah.front': [{ paths: ['frontTop', 'sideFront', 'frontBottom', 'mirroredSideFront'] }],
  'sarah.back': [{ paths: ['backTop', 'mirroredSideBack', 'backBottom', 'sideBack'] }],
};

/** A FreeSewing path (move / line / curve / close) as a polyline in mm, Béziers sampled finely. */
function flatten(path) {
  const pts = [];
  let cur = null;
  for (const op of path.ops) {
    if (op.type === 'move' || op.type === 'line') {
      cur = op.to;
      pts.push([cur.x, cur.y]);
    } else if (op.type === 'curve') {
      const [a, b, c, d] = [cur, op.cp1, op.cp2, op.to];
      const n = 32;
      for (let i = 1; i <= n; i++) {
        const t = i / n;
        const u = 1 - t;
        pts.push([
          u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x,
          u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y,
        ]);
      }
      cur = d;
    }
  }
  const dedup = pts.filter(
    (p, i) => i === 0 || Math.hypot(p[0] - pts[i - 1][0], p[1] - pts[i - 1][1]) > 1e-6,
  );
  const first = dedup[0];
  const last = dedup.at(-1);
  if (Math.hypot(first[0] - last[0], first[1] - last[1]) < 1e-3) dedup.pop();
  return dedup;
}

/** A half drafted against a vertical fold at x = fx → the full piece; null when no edge lies on the fold. */
function unfold(poly, fx, eps = 0.05) {
  const n = poly.length;
  const on = (p) => Math.abs(p[0] - fx) < eps;
  const i = poly.findIndex((p, k) => on(p) && on(poly[(k + 1) % n]));
  if (i < 0) return null;
  // Walk from the end of the fold edge round to its start; then add the mirror image walking back.
  const chain = Array.from({ length: n }, (_, k) => poly[(i + 1 + k) % n]);
  const side = Math.sign(chain.reduce((s, p) => s + (p[0] - fx), 0));
  const half = chain.map(([x, y]) => [fx + side * Math.abs(x - fx), y]);
  return half.concat(
    half
      .map(([x, y]) => [2 * fx - x, y])
      .reverse()
      .slice(1, -1),
  );
}

/** Open paths joined end to end into one outline, each turned round where it runs against its neighbour. */
function traced(part, names) {
  const near = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 0.05;
  const runs = names.map((name) => flatten(part.paths[name]));
  const [first, second] = runs;
  if (!near(first.at(-1), second[0]) && !near(first.at(-1), second.at(-1))) first.reverse();
  let poly = first;
  for (const run of runs.slice(1)) {
    if (!near(run[0], poly.at(-1))) run.reverse();
    if (!near(run[0], poly.at(-1))) throw new Error(`${names.join(' + ')}: the paths do not meet`);
    poly = poly.concat(run.slice(1));
  }
  if (near(poly[0], poly.at(-1))) poly.pop();
  return poly;
}

function piecesOf(Design, measurements) {
  const pattern = new Design({ measurements, sa: SA, complete: true }).draft();
  const errors = pattern.setStores[0].logs?.error ?? [];
  if (errors.length) throw new Error(`${Design.designConfig?.data?.name ?? 'design'}: ${errors.join('; ')}`);
  const cutlist = pattern.setStores[0].get('cutlist') ?? {};
  const out = [];
  for (const [partName, part] of Object.entries(pattern.parts[0])) {
    const outlines = OUTLINES[partName] ?? (part.paths.seam ? [{ paths: ['seam'] }] : []);
    if (part.hidden || !outlines.length) continue;
    const cut = cutlist[partName] ?? {};
    // Pieces of the shell fabric and ribbing only (a coat's lining, canvas and interfacing are other markers).
    if (cut.materials && !cut.materials.fabric && !cut.materials.ribbing) continue;
    for (const outline of outlines) {
      const name = outline.name ?? partName;
      const material = {
        ...(cut.materials?.fabric?.[0] ?? Object.values(cut.materials ?? {})[0]?.[0] ?? {}),
        ...('cut' in outline ? { cut: outline.cut } : {}),
        ...('onFold' in outline ? { onFold: outline.onFold } : {}),
      };
      let poly =
        outline.paths.length === 1 ? flatten(part.paths[outline.paths[0]]) : traced(part, outline.paths);
      let unfolded = false;
      const fold = cut.cutOnFold;
      // A half is unfolded when it is cut on the fold: flagged so, or cut an odd number of times (Penelope's
      // front is cut once and not flagged); a fold line on a piece cut in pairs (Carlton's front) is left alone.
      if (
        fold &&
        Math.abs(fold[0].x - fold[1].x) < 1e-6 &&
        (material.onFold || (material.cut ?? 1) % 2 === 1)
      ) {
        const full = unfold(poly, fold[0].x);
        if (full) {
          poly = full;
          unfolded = true;
        }
      }
      poly = simplify(poly, DP_MM);
      const xs = poly.map((p) => p[0]);
      const ys = poly.map((p) => p[1]);
      const x0 = Math.min(...xs);
      const y0 = Math.min(...ys);
      const truth = TRUTH[name];
      if (!truth) throw new Error(`no ground truth for ${name}`);
      out.push({
        name,
        label: truth[0],
        zh: truth[1],
        en: truth[2],
        cut: material.cut ?? 1,
        onFold: unfolded,
        grainDeg: typeof cut.grain === 'number' ? Math.round(cut.grain) : null,
        widthMm: round(Math.max(...xs) - x0),
        heightMm: round(Math.max(...ys) - y0),
        poly: poly.map(([x, y]) => [round(x - x0), round(y - y0)]),
      });
    }
  }
  return out;
}

const target = process.argv[2];
if (!target) throw new Error('usage: node gen-freesewing-fixtures.mjs <out.json> [size,size,…]');
const versionOf = (pkg) =>
  JSON.parse(readFileSync(`${process.cwd()}/node_modules/@freesewing/${pkg}/package.json`, 'utf8')).version;
const models = await import('@freesewing/models');
const garments = [];
for (const [pkg, exported, kind] of DESIGNS) {
  const Design = (await import(`@freesewing/${pkg}`))[exported];
  for (const size of SIZES) {
    const pieces = piecesOf(Design, models[size]);
    garments.push({
      id: `${pkg}-${size}`,
      design: exported,
      package: `@freesewing/${pkg}`,
      size,
      set: 'freesewing',
      kind,
      pieces,
    });
    console.log(
      `${pkg} ${size}: ${pieces.map((p) => `${p.name}×${p.cut}${p.onFold ? ' (fold)' : ''} ${p.widthMm}×${p.heightMm}`).join(', ')}`,
    );
  }
}
const doc = {
  about:
    'Cut-piece seam lines drafted by FreeSewing (MIT) with scripts/gen-freesewing-fixtures.mjs; mm, y down, ' +
    'cut-on-fold parts unfolded, simplified (Douglas–Peucker 0.8 mm). See README.md beside this file.',
  seamAllowanceMm: SA,
  versions: Object.fromEntries(['core', 'models', ...DESIGNS.map((d) => d[0])].map((p) => [p, versionOf(p)])),
  garments,
};
writeFileSync(target, `${JSON.stringify(doc)}\n`);
console.log(
  `${garments.length} garments, ${garments.reduce((s, g) => s + g.pieces.length, 0)} pieces → ${target}`,
);
