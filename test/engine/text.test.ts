/**
 * The text renderer (src/engine/text.ts): Chinese from the bundled font (checked against ImageMagick/FreeType
 * rendering the same font file, and against tofu), placement of the text box, colour, lines, font fallback.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Raster, TextSpec } from '../../src/engine/model.js';
import { alphaBounds } from '../../src/engine/raster.js';
import {
  autoLayerName,
  availableFonts,
  BUNDLED_FAMILIES,
  BUNDLED_FONT,
  bundledFontPath,
  isBundledFamily,
  LINE_HEIGHT_EM,
  psdFontName,
  renderText,
  renderTextSpec,
  resolveFont,
  TEXT_BASELINE_EM,
} from '../../src/engine/text.js';
import { CONVERT, imageMagickAvailable } from '../support/imagemagick.js';

const run = promisify(execFile);

function spec(over: Partial<TextSpec> = {}): TextSpec {
  return {
    content: '你好',
    x: 10,
    y: 20,
    size: 48,
    color: { r: 0, g: 0, b: 0 },
    font: BUNDLED_FONT,
    renderedFont: BUNDLED_FONT,
    ...over,
  };
}

/** Alpha of `r` at document position x, y (0 outside). */
function alphaAt(r: Raster, x: number, y: number): number {
  const ix = x - r.x;
  const iy = y - r.y;
  if (ix < 0 || iy < 0 || ix >= r.w || iy >= r.h) return 0;
  return r.data[(iy * r.w + ix) * 4 + 3]!;
}

/** Alpha masks of two rasters compared pixel by pixel, each taken relative to its own top-left. */
function alphaDiff(a: Raster, b: Raster) {
  const w = Math.max(a.w, b.w);
  const h = Math.max(a.h, b.h);
  let inkA = 0;
  let inkB = 0;
  let both = 0;
  let sumAbs = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const va = alphaAt(a, a.x + x, a.y + y);
      const vb = alphaAt(b, b.x + x, b.y + y);
      sumAbs += Math.abs(va - vb);
      if (va >= 128) inkA++;
      if (vb >= 128) inkB++;
      if (va >= 128 && vb >= 128) both++;
    }
  }
  return { iou: both / (inkA + inkB - both), meanAbs: sumAbs / (w * h) };
}

function inkCount(r: Raster, threshold = 128): number {
  let n = 0;
  for (let i = 3; i < r.data.length; i += 4) if (r.data[i]! >= threshold) n++;
  return n;
}

describe('Chinese text from the bundled font', () => {
  it('the bundled font is resolved through its npm package and registered under its alias', () => {
    expect(bundledFontPath()).toMatch(/@embedpdf[/\\]fonts-sc[/\\]fonts[/\\]NotoSansHans-Regular\.otf$/);
    expect(resolveFont(undefined)).toEqual({ family: BUNDLED_FONT, fallback: false });
    expect(availableFonts()).toContain(BUNDLED_FONT);
  });

  it('renders 你好 with ink inside the expected box: two em squares from the top-left of the text box', () => {
    const s = spec();
    const r = renderText(s);
    // Two ideographs of one em each; the ink sits inside [x, x + 2 em] × [y, y + 1 em] (± 2 px of antialiasing).
    expect(r.x).toBeGreaterThanOrEqual(s.x - 2);
    expect(r.y).toBeGreaterThanOrEqual(s.y - 2);
    expect(r.x + r.w).toBeLessThanOrEqual(s.x + 2 * s.size + 2);
    expect(r.y + r.h).toBeLessThanOrEqual(s.y + s.size + 2);
    // …and fills most of it: at least 90 % of 2 em wide and 85 % of an em tall, with real strokes inside.
    expect(r.w).toBeGreaterThan(0.9 * 2 * s.size);
    expect(r.h).toBeGreaterThan(0.85 * s.size);
    const coverage = inkCount(r) / (r.w * r.h);
    expect(coverage).toBeGreaterThan(0.12);
    expect(coverage).toBeLessThan(0.6);
  });

  it('is not tofu: 你好 differs from two missing glyphs, and different characters differ', () => {
    const hello = renderText(spec());
    const tofu = renderText(spec({ content: '\u{10FFFD}\u{10FFFD}' }));
    const world = renderText(spec({ content: '世界' }));
    // Missing glyphs render as the font's .notdef boxes: a completely different shape.
    expect(alphaDiff(hello, tofu).iou).toBeLessThan(0.5);
    expect(alphaDiff(hello, world).iou).toBeLessThan(0.5);
    // Each ideograph is a distinct shape: the two halves of 你好 differ too.
    const half = Math.floor(hello.w / 2);
    const left: Raster = { ...hello, w: half, data: crop(hello, 0, half) };
    const right: Raster = { ...hello, w: half, data: crop(hello, hello.w - half, half) };
    expect(alphaDiff(left, right).iou).toBeLessThan(0.5);
  });

  it.runIf(imageMagickAvailable())(
    'matches ImageMagick (FreeType) drawing the same font file: same ink box ±2 px, masks overlap ≥ 85 %',
    async () => {
      const size = 72;
      const { stdout } = await run(
        CONVERT,
        [
          '-background',
          'black',
          '-fill',
          'white',
          '-font',
          bundledFontPath(),
          '-pointsize',
          String(size),
          '-density',
          '72',
          'label:你好',
          '-trim',
          '+repage',
          '-depth',
          '8',
          'pgm:-',
        ],
        { encoding: 'buffer', maxBuffer: 1 << 24 },
      );
      const ours = renderText(spec({ size }));
      // A binary PGM: "P5 <w> <h> 255" and a newline, then the gray bytes.
      const pgm = stdout as Buffer;
      const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 64).toString('latin1'))!;
      const [w, h] = [Number(header[1]), Number(header[2])];
      const gray = pgm.subarray(header[0].length);
      expect(gray.length).toBe(w * h);
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < w * h; i++) data[i * 4 + 3] = gray[i]!;
      const ref: Raster = { x: 0, y: 0, w, h, data };
      expect(Math.abs(ours.w - w)).toBeLessThanOrEqual(2);
      expect(Math.abs(ours.h - h)).toBeLessThanOrEqual(2);
      const d = alphaDiff(ours, ref);
      expect(d.iou).toBeGreaterThan(0.85);
      // Same amount of ink (coverage sums within 3 %): strokes neither thinner nor bolder than FreeType's.
      const sum = (r: Raster) => r.data.reduce((acc, v, i) => (i % 4 === 3 ? acc + v : acc), 0);
      expect(Math.abs(sum(ours) / sum(ref) - 1)).toBeLessThan(0.03);
      // The tofu rendering is nowhere near the reference.
      expect(alphaDiff(renderText(spec({ size, content: '\u{10FFFD}\u{10FFFD}' })), ref).iou).toBeLessThan(
        0.5,
      );
    },
  );
});

function crop(r: Raster, x0: number, w: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * r.h * 4);
  for (let y = 0; y < r.h; y++)
    out.set(r.data.subarray((y * r.w + x0) * 4, (y * r.w + x0 + w) * 4), y * w * 4);
  return out;
}

describe('layout', () => {
  it('x, y is the top-left of the text box: the ink of 你 starts within 0.08 em + 1 px right of and below it', () => {
    for (const [x, y, size] of [
      [10, 20, 48],
      [0, 0, 100],
      [-30, 500, 24],
      [7.5, 3.25, 60],
    ] as const) {
      const r = renderText(spec({ content: '你', x, y, size }));
      const tol = 0.08 * size + 1;
      expect(r.x - x).toBeGreaterThanOrEqual(-1);
      expect(r.x - x).toBeLessThanOrEqual(tol);
      expect(r.y - y).toBeGreaterThanOrEqual(-1);
      expect(r.y - y).toBeLessThanOrEqual(tol);
    }
  });

  it('moving the text box by whole pixels moves the same pixels', () => {
    const a = renderText(spec({ content: '服装 Ag' }));
    const b = renderText(spec({ content: '服装 Ag', x: 110, y: -80 }));
    expect([b.x - a.x, b.y - a.y, b.w, b.h]).toEqual([100, -100, a.w, a.h]);
    expect(Buffer.from(b.data).equals(Buffer.from(a.data))).toBe(true);
  });

  it('\\n makes lines: the second line starts one line height (1.2 em) lower, the height grows by it', () => {
    const size = 40;
    const one = renderText(spec({ content: '你好', size }));
    const two = renderText(spec({ content: '你好\n你好', size }));
    expect(LINE_HEIGHT_EM).toBe(1.2);
    expect(two.x).toBe(one.x);
    expect(two.y).toBe(one.y);
    expect(two.w).toBe(one.w);
    expect(Math.abs(two.h - (one.h + LINE_HEIGHT_EM * size))).toBeLessThanOrEqual(1);
    // The bottom line is the top line again, 48 px lower (±1 px of subpixel placement).
    const shifted = alphaDiff({ ...one, y: 0 }, { ...two, y: 0, h: one.h, data: rows(two, 48, one.h) });
    expect(shifted.iou).toBeGreaterThan(0.9);
    // \r\n and \r break lines too.
    expect(renderText(spec({ content: '你好\r\n你好', size })).h).toBe(two.h);
    expect(renderText(spec({ content: '你好\r你好', size })).h).toBe(two.h);
  });

  it('a vanishing size renders nothing and does not disturb the next rendering', () => {
    const before = renderText(spec());
    expect(renderText(spec({ size: 0.001 })).w).toBe(0);
    expect(renderText(spec({ size: 1e-9 })).w).toBe(0);
    expect(Buffer.from(renderText(spec()).data).equals(Buffer.from(before.data))).toBe(true);
  });

  it('an empty or blank text renders nothing (an empty raster at the box)', () => {
    for (const content of ['', '   ', '\n\n']) {
      const r = renderText(spec({ content, x: 5, y: 6 }));
      expect([r.x, r.y, r.w, r.h]).toEqual([5, 6, 0, 0]);
    }
  });

  it('nothing is clipped: the ink equals what a generous canvas shows for descenders, accents and overhangs', () => {
    const size = 64;
    for (const content of ['gjpqy ÉÅ ffi', 'fj (你好)', 'Ǻǻ ¿ỹ |']) {
      const r = renderText(spec({ content, size }));
      // Reference: the same string drawn straight with Skia on a canvas four times too large.
      const W = Math.ceil(content.length * size * 2);
      const c = createCanvas(W, size * 4);
      const ctx = c.getContext('2d');
      ctx.font = `${size}px "${BUNDLED_FONT}"`;
      // Skia's coverage depends on the fill's luminance; the renderer draws in mid grey, so does the reference.
      ctx.fillStyle = '#808080';
      ctx.fillText(content, size, size * 2);
      const img = ctx.getImageData(0, 0, W, size * 4).data;
      let refSum = 0;
      for (let i = 3; i < img.length; i += 4) refSum += img[i]!;
      let sum = 0;
      for (let i = 3; i < r.data.length; i += 4) sum += r.data[i]!;
      expect(Math.abs(sum - refSum) / refSum).toBeLessThan(0.002);
      const b = alphaBounds(r);
      expect([b.w, b.h]).toEqual([r.w, r.h]);
    }
  });
});

function rows(r: Raster, from: number, count: number): Uint8ClampedArray {
  const h = Math.min(count, r.h - from);
  const out = new Uint8ClampedArray(r.w * count * 4);
  out.set(r.data.subarray(from * r.w * 4, (from + h) * r.w * 4));
  return out;
}

describe('colour', () => {
  it('every inked pixel has exactly the text colour; only alpha carries the antialiasing', () => {
    const r = renderText(spec({ content: '红色 Red', color: { r: 200, g: 30, b: 40 } }));
    let edge = 0;
    for (let i = 0; i < r.data.length; i += 4) {
      const a = r.data[i + 3]!;
      if (a === 0) continue;
      expect([r.data[i], r.data[i + 1], r.data[i + 2]]).toEqual([200, 30, 40]);
      if (a < 255) edge++;
    }
    expect(edge).toBeGreaterThan(0);
    expect(inkCount(r, 255)).toBeGreaterThan(0);
  });

  it('the alpha (shape) does not depend on the colour', () => {
    const black = renderText(spec({ content: '文字' }));
    const teal = renderText(spec({ content: '文字', color: { r: 0, g: 128, b: 128 } }));
    for (let i = 3; i < black.data.length; i += 4) expect(teal.data[i]).toBe(black.data[i]);
  });
});

describe('fonts', () => {
  it('an unknown font falls back to the bundled font and says so; the pixels are the bundled rendering', () => {
    const { text, raster, fallback } = renderTextSpec(spec({ font: 'No Such Font 123' }));
    expect(fallback).toBe(true);
    expect(text.font).toBe('No Such Font 123');
    expect(text.renderedFont).toBe(BUNDLED_FONT);
    expect(Buffer.from(raster.data).equals(Buffer.from(renderText(spec()).data))).toBe(true);
  });

  it('names of the bundled font (PostScript, Source Han) resolve to it without a fallback', () => {
    for (const name of ['noto sans sc', 'NotoSansSC-Regular', 'NotoSansHans-Regular', 'Source Han Sans SC']) {
      expect(resolveFont(name)).toEqual({ family: BUNDLED_FONT, fallback: false });
    }
  });

  it('the bundled weights answer to their names (Noto, Source Han, 思源黑体) and draw heavier or lighter', () => {
    for (const name of [
      'Noto Sans SC Bold',
      'NotoSansHans-Bold',
      'Source Han Sans SC Bold',
      '思源黑体 Bold',
    ]) {
      expect(resolveFont(name)).toEqual({ family: 'Noto Sans SC Bold', fallback: false });
    }
    expect(resolveFont('NotoSansCJKsc-Light')).toEqual({ family: 'Noto Sans SC Light', fallback: false });
    expect(BUNDLED_FAMILIES).toEqual([
      'Noto Sans SC Light',
      'Noto Sans SC DemiLight',
      BUNDLED_FONT,
      'Noto Sans SC Medium',
      'Noto Sans SC Bold',
    ]);
    expect(availableFonts()).toEqual(expect.arrayContaining([...BUNDLED_FAMILIES]));
    // Ink (summed alpha) grows with the weight, for the same text and size.
    const ink = (font: string) => {
      const r = renderText(spec({ content: '春夏新品发布', size: 48, font }));
      let sum = 0;
      for (let i = 3; i < r.data.length; i += 4) sum += r.data[i]!;
      return sum;
    };
    const inks = BUNDLED_FAMILIES.map(ink);
    for (let i = 1; i < inks.length; i++) expect(inks[i]).toBeGreaterThan(inks[i - 1]!);
    expect(inks[4]! / inks[2]!).toBeGreaterThan(1.3);
  });

  it('a missing font falls back to the bundled weight its name asks for', () => {
    const cases: [string, string][] = [
      ['Microsoft YaHei Bold', 'Noto Sans SC Bold'],
      ['微软雅黑 粗体', 'Noto Sans SC Bold'],
      ['PingFang SC Semibold', 'Noto Sans SC Bold'],
      ['方正兰亭中粗黑', 'Noto Sans SC Medium'],
      ['PingFang SC Medium', 'Noto Sans SC Medium'],
      ['Helvetica Light', 'Noto Sans SC Light'],
      ['方正细黑', 'Noto Sans SC Light'],
      ['SimHei', BUNDLED_FONT],
    ];
    for (const [name, family] of cases) expect(resolveFont(name), name).toEqual({ family, fallback: true });
  });

  it('PSDs name each bundled weight by its PostScript name', () => {
    expect(psdFontName('Noto Sans SC Bold')).toBe('NotoSansHans-Bold');
    expect(psdFontName(BUNDLED_FONT)).toBe('NotoSansHans-Regular');
    expect(psdFontName('思源黑体 Light')).toBe('NotoSansHans-Light');
    expect(psdFontName('Arial-BoldMT')).toBe('Arial-BoldMT');
  });

  it("keeps a PostScript name as it is (a file's own, though the bundled font draws it) and writes family names in PostScript form", () => {
    // Names the bundled font answers to, as files name them: kept, not renamed to the bundled file's name.
    expect(psdFontName('SourceHanSansSC-Bold')).toBe('SourceHanSansSC-Bold');
    expect(psdFontName('NotoSansCJKsc-Regular')).toBe('NotoSansCJKsc-Regular');
    expect(psdFontName('NotoSansSC-Regular')).toBe('NotoSansSC-Regular');
    expect(psdFontName('MicrosoftYaHei')).toBe('MicrosoftYaHei');
    // Family names, with or without a style, never written with spaces.
    expect(psdFontName('Microsoft YaHei')).toBe('MicrosoftYaHei');
    expect(psdFontName('Microsoft YaHei Bold')).toBe('MicrosoftYaHei-Bold');
    expect(psdFontName(' Microsoft YaHei UI ')).toBe('MicrosoftYaHeiUI');
    expect(psdFontName('微软雅黑')).toBe('MicrosoftYaHei');
    expect(psdFontName('宋体')).toBe('SimSun');
    expect(psdFontName('苹方-简')).toBe('PingFangSC-Regular');
    expect(psdFontName('PingFang SC Semibold')).toBe('PingFangSC-Semibold');
    expect(psdFontName('Helvetica Neue Light Italic')).toBe('HelveticaNeue-LightItalic');
    // A name in another script that no table knows stays as it is (there is no PostScript form to give).
    expect(psdFontName('方正兰亭黑')).toBe('方正兰亭黑');
  });

  // A system font, when the machine has one (none on a bare machine: then only the bundled font's own names exist).
  const other = availableFonts().find(
    (f) => !isBundledFamily(resolveFont(f).family) && /sans|serif/i.test(f),
  );
  it.runIf(other !== undefined)(
    'an installed font draws Latin itself and Chinese through the bundled font (never tofu)',
    () => {
      const family = other!;
      expect(resolveFont(family.toUpperCase())).toEqual({ family, fallback: false });
      const latinOther = renderText(spec({ content: 'Hamburg', font: family }));
      const latinBundled = renderText(spec({ content: 'Hamburg' }));
      expect(alphaDiff(latinOther, latinBundled).meanAbs).toBeGreaterThan(5);
      // Chinese in a font without CJK: the very same pixels as the bundled font (the fallback chain).
      const cjkOther = renderText(spec({ content: '你好', font: family }));
      const cjkBundled = renderText(spec({ content: '你好' }));
      expect([cjkOther.x, cjkOther.y, cjkOther.w, cjkOther.h]).toEqual([
        cjkBundled.x,
        cjkBundled.y,
        cjkBundled.w,
        cjkBundled.h,
      ]);
      expect(alphaDiff(cjkOther, cjkBundled).meanAbs).toBeLessThan(1);
    },
  );

  it('the first baseline is TEXT_BASELINE_EM below y: the ideographic em box spans y … y + 1 em', () => {
    const size = 200;
    // The bundled font's ideographic em box runs from 0.88 em above the baseline to 0.12 em below it, so with the
    // baseline at y + 0.88 em the box is [y, y + size]: 一 (a stroke across its middle) is centred at y + 0.5 em,
    // and 口 fills it to within its side bearings.
    expect(TEXT_BASELINE_EM).toBe(0.88);
    const one = renderText(spec({ content: '一', x: 0, y: 0, size }));
    expect(Math.abs(one.y + one.h / 2 - 0.5 * size)).toBeLessThan(0.06 * size);
    const box = renderText(spec({ content: '口', x: 0, y: 0, size }));
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeLessThan(0.15 * size);
    expect(box.y + box.h).toBeLessThanOrEqual(size);
    expect(box.y + box.h).toBeGreaterThan(0.85 * size);
  });
});

/** Linux, as root, with unshare: a private mount namespace can hide every system font. */
const canHideSystemFonts =
  process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/unshare');

describe('a machine without system fonts', () => {
  it.runIf(canHideSystemFonts)(
    'renders Chinese from the bundled font alone, pixel for pixel as here (system fonts hidden by an empty /usr/share/fonts)',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'bare-fonts-'));
      try {
        const script = path.join(dir, 'bare.ts');
        const module = pathToFileURL(path.resolve('src/engine/text.ts')).href;
        await writeFile(
          script,
          [
            `import { availableFonts, renderText } from ${JSON.stringify(module)};`,
            `const s = ${JSON.stringify(spec({ font: 'Microsoft YaHei' }))};`,
            'const r = renderText(s);',
            'process.stdout.write(JSON.stringify({ fonts: availableFonts(), box: [r.x, r.y, r.w, r.h], data: Buffer.from(r.data).toString("base64") }));',
          ].join('\n'),
        );
        const { stdout } = await run(
          '/usr/bin/unshare',
          ['-m', 'sh', '-c', `mount -t tmpfs none /usr/share/fonts && exec node --import tsx ${script}`],
          { encoding: 'utf8', cwd: process.cwd(), maxBuffer: 1 << 26 },
        );
        const bare = JSON.parse(stdout) as { fonts: string[]; box: number[]; data: string };
        // Only the bundled font (under its alias and its internal family name) is left.
        expect(bare.fonts.every((f) => isBundledFamily(resolveFont(f).family))).toBe(true);
        const here = renderText(spec({ font: 'Microsoft YaHei' }));
        expect(bare.box).toEqual([here.x, here.y, here.w, here.h]);
        expect(Buffer.from(bare.data, 'base64').equals(Buffer.from(here.data))).toBe(true);
        // …and that is Chinese, not tofu.
        expect(alphaDiff(here, renderText(spec({ content: '\u{10FFFD}\u{10FFFD}' }))).iou).toBeLessThan(0.5);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('names', () => {
  it('a text layer is named after the first 20 characters of its first non-empty line', () => {
    expect(autoLayerName('你好世界')).toBe('你好世界');
    expect(autoLayerName('第一行\n第二行')).toBe('第一行');
    expect(autoLayerName('\n  标题  \n')).toBe('标题');
    expect(autoLayerName('一二三四五六七八九十一二三四五六七八九十多余')).toBe(
      '一二三四五六七八九十一二三四五六七八九十',
    );
    expect(autoLayerName('😀'.repeat(25))).toBe('😀'.repeat(20));
    expect(autoLayerName('   ')).toBe('文字图层');
  });
});

describe('speed', () => {
  it('renders a 50 px line and a 600 px title quickly (figures printed)', async () => {
    const line = spec({ content: '你好世界 Hello 服装设计', size: 50 });
    renderText(line);
    let t = performance.now();
    for (let i = 0; i < 20; i++) renderText(line);
    const lineMs = (performance.now() - t) / 20;
    t = performance.now();
    const title = renderText(spec({ content: '春夏新品', size: 600 }));
    const titleMs = performance.now() - t;
    console.log(
      `text render: 50 px line ${lineMs.toFixed(1)} ms; 600 px title ${titleMs.toFixed(0)} ms (${title.w}×${title.h})`,
    );
    expect(lineMs).toBeLessThan(50);
    expect(titleMs).toBeLessThan(1000);
    // The rendering is a real image: it encodes.
    const png = await sharp(Buffer.from(title.data), {
      raw: { width: title.w, height: title.h, channels: 4 },
    })
      .png()
      .toBuffer();
    expect(png.length).toBeGreaterThan(1000);
  });
});
