/**
 * The garment flow and chat in a real browser: without a model (the toolbox runs identify and preview, 确认套图
 * opens the pieces table, phase 2 and verification run, the score shows), and with a scripted OpenAI-compatible
 * model (a message gives tool cards; 确认套图 tells the model, which applies and verifies).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import type { PixelLayer } from '../../src/engine/model.js';
import sharp from '../../src/engine/sharp.js';
import { layersNamed } from '../../src/engine/tree.js';
import { loadFixtures, marker, openMarker } from '../garment/freesewing-fixtures.js';
import { startTestServer, type TestServer } from '../server/support.js';
import {
  attrOf,
  canvasInk,
  countOf,
  eventually,
  finished,
  imagePixels,
  launchBrowser,
  openPage,
  requireBuiltStudio,
  shownPicture,
  snapshot,
  textOf,
  visibleOf,
} from '../support/browser.js';
import { garmentDocument, garmentPhoto, NAMES, PIECES, pieceRaster } from '../support/garment-fixtures.js';
import { type ScriptedModel, type ScriptedRequest, startScriptedModel } from '../support/scripted-model.js';
import { newSession, ok, tempDir } from '../support/session.js';

let browser: Browser;
let piecesPsd: string;
let twinsPsd: string;
let blazerPsd: string;
let photoPng: string;

beforeAll(async () => {
  requireBuiltStudio();
  browser = await launchBrowser();
  const session = newSession(tempDir('atelier-web-garment-'));
  await garmentDocument(session, 'zh');
  await ok(session, 'save_document_as', { path: 'pieces.psd' });
  piecesPsd = path.join(session.workspace.root, 'pieces.psd');
  photoPng = path.join(session.workspace.root, 'shirt.png');
  writeFileSync(photoPng, await garmentPhoto('fill'));
  // Front and back cut from one outline, layer names meaningless: nothing says which is which.
  const twins = newSession(tempDir('atelier-web-twins-'));
  await garmentDocument(twins, 'none');
  const tx = twins.editor.begin();
  const doc = tx.activeDocument();
  const back = layersNamed(doc.state, NAMES.none.back)[0] as PixelLayer;
  const raster = { ...pieceRaster('front'), x: PIECES.back.x, y: PIECES.back.y };
  tx.update(doc.id, { ...doc.state, layers: new Map(doc.state.layers).set(back.id, { ...back, raster }) });
  twins.editor.commit(tx, 'twins', true);
  await ok(twins, 'save_document_as', { path: 'twins.psd' });
  twinsPsd = path.join(twins.workspace.root, 'twins.psd');
  // A tailored jacket laid out with meaningless names: its lapelled fronts are in doubt against the back, and
  // against a third part too.
  const fixtures = loadFixtures();
  const blazer = newSession(tempDir('atelier-web-blazer-'));
  const jacket = fixtures.garments.find((g) => g.id === 'blazer-M')!;
  await openMarker(blazer, marker(jacket, 'none', 0.5, fixtures.seamAllowanceMm), 'blazer');
  await ok(blazer, 'save_document_as', { path: 'blazer.psd' });
  blazerPsd = path.join(blazer.workspace.root, 'blazer.psd');
});

afterAll(async () => {
  await browser?.close();
});

function feed(page: Page) {
  return page.getByRole('log').first();
}

function lastCard(page: Page, label: string) {
  return feed(page).getByRole('article', { name: label }).last();
}

async function upload(page: Page, button: '上传文档' | '上传服装照片', file: string) {
  await page.getByRole('tab', { name: '文件' }).click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await chooser.setFiles(file);
}

/** Uploads the pieces (opened as a document) and the garment photo, as a designer starts. */
async function uploadGarment(page: Page, pieces = piecesPsd) {
  await upload(page, '上传文档', pieces);
  await finished(lastCard(page, '打开文档'));
  await upload(page, '上传服装照片', photoPng);
  await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain(
    '服装照片：shirt.png',
  );
}

/**
 * Uploads a cut-piece PSD (by default the twins: two identical body panels, names meaningless) and identifies it
 * from the toolbox.
 */
async function identifyUploaded(page: Page, pieces = twinsPsd) {
  await uploadGarment(page, pieces);
  const group = page.getByRole('region', { name: '服装套图' });
  await group.getByRole('button', { name: '识别裁片部位', exact: true }).click();
  await page.getByRole('button', { name: '运行' }).click();
  const identified = lastCard(page, '识别裁片部位');
  await finished(identified);
  return identified;
}

/** From the toolbox's open tool form: runs 生成花样预览 and opens its pieces table with 确认套图. */
/**
 * The thumbnail of the piece named `name` in the pieces table, once its picture shows: its size (CSS px) and the
 * share of it the piece covers (pixels darker than the table's light ground; the fixture's pieces are grey).
 */
function thumbnail(table: Locator, name: string): Promise<{ w: number; h: number; ink: number }> {
  return pictureOf(
    table
      .locator('td.piece-name')
      .filter({ hasText: new RegExp(`^${name}$`) })
      .locator('.piece-thumb > :is(span, img)'),
  );
}

/**
 * A piece's thumbnail (table row or doubt), once it shows: its size on the page and the share of it the piece
 * covers — of its layer's thumbnail, the opaque pixels (the checkerboard behind is not the piece); of a cut from
 * the marker's render, the pixels darker than the page.
 */
async function pictureOf(picture: Locator): Promise<{ w: number; h: number; ink: number }> {
  const image = (await picture.evaluate((e) => (e as { tagName: string }).tagName)) === 'IMG';
  const read = async () => {
    const box = (await picture.boundingBox())!;
    if (image) {
      const layer = await imagePixels(picture);
      let opaque = 0;
      for (let i = 3; i < (layer?.data.length ?? 0); i += 4) if (layer!.data[i]! > 127) opaque++;
      return { w: box.width, h: box.height, ink: layer ? opaque / (layer.width * layer.height) : 0 };
    }
    const png = await picture.screenshot();
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    let ink = 0;
    for (let i = 0; i < info.width * info.height; i++) if (data[i * info.channels]! < 240) ink++;
    return { w: box.width, h: box.height, ink: ink / (info.width * info.height) };
  };
  // The picture is decoded after the element shows.
  await eventually(async () => (await read()).ink).toBeGreaterThan(0.3);
  return read();
}

async function previewTable(page: Page) {
  const group = page.getByRole('region', { name: '服装套图' });
  await page.getByRole('button', { name: '返回工具列表' }).click();
  await group.getByRole('button', { name: '生成花样预览', exact: true }).click();
  await page.getByRole('button', { name: '运行' }).click();
  const preview = lastCard(page, '生成花样预览');
  await finished(preview);
  await preview.getByRole('button', { name: '确认套图' }).click();
  return { preview, table: preview.getByRole('table', { name: '裁片' }) };
}

/** The layer a line of the doubt note asks about: "图层 8：…", or "图层 8（同一裁片：图层 9）：…" for an outline cut twice. */
function askedPiece(line: string): string {
  return /^(\S+ \d+)(?:（同一裁片：[^）]*）)?：/.exec(line)![1]!;
}

async function expectScore(page: Page) {
  const card = lastCard(page, '验证套图效果');
  await finished(card);
  const badge = card.getByRole('img', { name: /^评分 \d+(\.\d+)? \/ 10$/ });
  await eventually(visibleOf(badge)).toBe(true);
  const score = Number(/评分 ([\d.]+)/.exec((await badge.getAttribute('aria-label'))!)![1]);
  expect(score).toBeGreaterThanOrEqual(1);
  expect(score).toBeLessThanOrEqual(10);
  await eventually(textOf(card)).toContain('改进建议');
  // Suggestions are written for a model; the designer reads the tools they name under their labels.
  const advice = await textOf(card.locator('.verify'))();
  expect(advice).not.toMatch(
    /save_document|identify_pieces|generate_garment_preview|extract_and_apply_all_pieces|verify_pattern_result/,
  );
  return score;
}

// Garment analyses run in these tests: the wait for them is bounded here, not by the default minute.
describe('the garment flow without a model', { timeout: 600_000 }, () => {
  let server: TestServer;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    page = await openPage(browser, `${server.url}/`);
  });

  afterAll(async () => {
    await page?.context().close();
    await server?.close();
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await snapshot(page, `failed-${task.name.slice(0, 40)}`);
  });

  it('previews, confirms in the pieces table, applies, verifies and shows the score', async () => {
    await uploadGarment(page);
    const group = page.getByRole('region', { name: '服装套图' });
    await group.getByRole('button', { name: '识别裁片部位', exact: true }).click();
    await page.getByRole('button', { name: '运行' }).click();
    await finished(lastCard(page, '识别裁片部位'));
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await group.getByRole('button', { name: '生成花样预览', exact: true }).click();
    // The description is written for a model; the tool it says to call first reads under its label.
    const description = await textOf(page.locator('.tool-description'))();
    expect(description).toContain('「识别裁片部位」');
    expect(description).not.toContain('identify_pieces');
    // Every stage the running card shows, as it shows it.
    await page.evaluate(`(() => {
      window.stagesSeen = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.card .progress span')) {
          if (!window.stagesSeen.includes(el.textContent)) window.stagesSeen.push(el.textContent);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.getByRole('button', { name: '运行' }).click();
    const preview = lastCard(page, '生成花样预览');
    await finished(preview);
    // The long call streamed its stages and the card showed them while it ran.
    expect(await page.evaluate('window.stagesSeen')).toEqual(
      expect.arrayContaining(['提取印花', '绘制预览']),
    );
    // The preview image is shown inline, fetched with the session's credentials.
    await eventually(() =>
      preview
        .locator('img')
        .first()
        .evaluate((img) => (img as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(100);
    await snapshot(page, '10-garment-preview');
    // The preview opens full size, and closes again.
    await preview.getByRole('button', { name: '查看大图' }).click();
    const large = page.getByRole('dialog');
    await eventually(() =>
      large.locator('img').evaluate((img) => (img as { width: number }).width),
    ).toBeGreaterThan(600);
    await snapshot(page, '10b-garment-preview-large');
    await page.keyboard.press('Escape');
    await eventually(visibleOf(large)).toBe(false);

    await preview.getByRole('button', { name: '确认套图' }).click();
    const table = preview.getByRole('table', { name: '裁片' });
    await eventually(textOf(table)).toContain('前片');
    // The photo is an all-over repeat with no motif: a motif type is shown, greyed out, with why.
    const typeOptions = table.locator('select.type-pick').first().locator('option');
    const offered = (await typeOptions.evaluateAll((os) =>
      os.map((o) => {
        const option = o as unknown as { value: string; disabled: boolean; textContent: string };
        return `${option.value}:${option.disabled}:${option.textContent}`;
      }),
    )) as string[];
    expect(offered.find((o) => o.startsWith('fill_pattern:'))).toMatch(/^fill_pattern:false:/);
    expect(offered.find((o) => o.startsWith('theme_pattern:'))).toMatch(/^theme_pattern:true:/);
    await expect(textOf(preview.locator('.types-unavailable'))()).resolves.toContain(
      '不可选：照片中没有检测到主题图案',
    );
    // The rows read as a designer reads a garment: by part in the parts' order, not in the marker's layer order.
    const partsInRows = await table.getByRole('row').evaluateAll((rows) =>
      rows.flatMap((r) => {
        const select = (r as unknown as { querySelector(s: string): { value: string } | null }).querySelector(
          'select',
        );
        return select ? [select.value] : [];
      }),
    );
    const order = ['front', 'back', 'left_sleeve', 'right_sleeve', 'collar', 'cuff', 'pocket', 'waistband'];
    expect(partsInRows.length).toBeGreaterThan(3);
    expect(partsInRows).toEqual([...partsInRows].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
    expect(partsInRows[0]).toBe('front');
    // Each piece's proposed type can be changed before applying: make the collar plain.
    await table.getByLabel('类型 领').selectOption('solid');
    await snapshot(page, '11-garment-pieces');
    // What reaches the server, in order: the applied print is rendered for the canvas before verify is sent, which
    // would hold the session (and so the render) for seconds on a production-size marker.
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/tool-calls'))
        sent.push(
          ...(r.postDataJSON() as { tool_calls: { function: { name: string } }[] }).tool_calls.map(
            (c) => c.function.name,
          ),
        );
    });
    page.on('requestfinished', (r) => {
      if (r.url().includes('/render.png')) sent.push('render');
    });
    page.on('request', (r) => {
      if (r.url().includes('/render.png')) sent.push('render asked');
    });
    await preview.getByRole('button', { name: '开始套图' }).click();
    await finished(lastCard(page, '提取并套图'));
    await expectScore(page);
    const applied = sent.indexOf('extract_and_apply_all_pieces');
    expect(applied, sent.join(', ')).toBeGreaterThanOrEqual(0);
    expect(sent.slice(applied), sent.join(', ')).toEqual(
      expect.arrayContaining(['extract_and_apply_all_pieces', 'render', 'verify_pattern_result']),
    );
    expect(sent.indexOf('render', applied), sent.join(', ')).toBeLessThan(
      sent.indexOf('verify_pattern_result'),
    );
    // Verify changes no pixels: once its run is over (the table closed) the canvas is not rendered again.
    await eventually(countOf(table)).toBe(0);
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
    await page.evaluate('new Promise((done) => setTimeout(done, 300))');
    expect(sent.slice(sent.indexOf('verify_pattern_result')), sent.join(', ')).not.toContain('render asked');
    // In English the measures are named in English (each measure's label_en), and in Chinese again after.
    await page.getByRole('button', { name: '切换为英文界面' }).click();
    const measures = lastCard(page, 'Verify Pattern').locator('.measures');
    await eventually(textOf(measures)).toContain('Against the photo');
    expect(await textOf(measures)()).not.toMatch(/[\u4e00-\u9fff]/);
    await page.getByRole('button', { name: 'Switch to Chinese' }).click();
    await eventually(textOf(lastCard(page, '验证套图效果').locator('.measures'))).toContain('与照片对照');
    await page.getByRole('tab', { name: '图层' }).click();
    await eventually(textOf(page.getByRole('list', { name: '图层列表' }))).toContain('领 花样');
    await eventually(textOf(page.getByRole('list', { name: '图层列表' }))).toContain('底色');
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.02);
    await snapshot(page, '12-garment-verified');
    // Groups fold away in the layers pane.
    const layers = page.getByRole('list', { name: '图层列表' });
    await layers.getByRole('button', { name: '折叠图层组 领 花样' }).click();
    await eventually(textOf(layers)).not.toContain('领 底色');
    await layers.getByRole('button', { name: '展开图层组 领 花样' }).click();
    await eventually(textOf(layers)).toContain('领 底色');
    // A group's pass-through mode reads as Photoshop names it, not as the engine's value.
    await layers.getByRole('button', { name: '领 花样', exact: true }).click();
    await eventually(() =>
      page
        .getByLabel('混合模式')
        .evaluate(
          (s) => (s as { selectedOptions: { textContent: string | null }[] }).selectedOptions[0]?.textContent,
        ),
    ).toBe('穿透');
  });

  it('shows each piece in the pieces table as it lies on the marker', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    try {
      const identified = await identifyUploaded(fresh, piecesPsd);
      const reported = JSON.parse(await textOf(identified.locator('.card-result pre'))()) as {
        pieces: { name: string; bounds: { left: number; top: number; width: number; height: number } }[];
      };
      const { table } = await previewTable(fresh);
      const front = await thumbnail(table, '前片');
      const sleeve = await thumbnail(table, '左袖');
      const collar = await thumbnail(table, '领');
      // Cut from the marker where each piece lies: the front upright and all but filled by the piece (its neck
      // and armholes are cut out), the sleeve a trapezoid, the collar a strip filled end to end.
      expect(front.h).toBeGreaterThan(front.w);
      expect(front.ink).toBeGreaterThan(0.75);
      expect(sleeve.w).toBeGreaterThan(sleeve.h);
      expect(sleeve.ink).toBeGreaterThan(0.5);
      expect(sleeve.ink).toBeLessThan(0.95);
      expect(collar.w).toBeGreaterThan(4 * collar.h);
      expect(collar.ink).toBeGreaterThan(0.85);
      // Pointed at, a row's piece is outlined on the canvas where it lies; pointed away, no longer.
      const mark = fresh.locator('.artboard .piece-mark');
      const artboard = (await fresh.locator('.artboard').boundingBox())!;
      const scale = artboard.width / 1320;
      for (const name of ['领', '前片']) {
        await table
          .locator('td.piece-name')
          .filter({ hasText: new RegExp(`^${name}$`) })
          .hover();
        await eventually(() => mark.getAttribute('data-piece')).toBe(name);
        const b = reported.pieces.find((p) => p.name === name)!.bounds;
        const box = (await mark.boundingBox())!;
        expect(Math.abs(box.x - (artboard.x + b.left * scale))).toBeLessThan(2);
        expect(Math.abs(box.y - (artboard.y + b.top * scale))).toBeLessThan(2);
        expect(Math.abs(box.width - b.width * scale)).toBeLessThan(2);
        expect(Math.abs(box.height - b.height * scale)).toBeLessThan(2);
      }
      await table.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13g-garment-piece-thumbnails');
      await fresh.getByRole('banner').hover();
      await eventually(countOf(mark)).toBe(0);
      // Its picture clicked, the canvas is fitted to the piece: the collar centred, at 100 % (never enlarged), in
      // the part of the canvas right of the toolbox floating on its left.
      await table.getByRole('button', { name: '在画布上查看 领' }).click();
      await eventually(textOf(fresh.locator('.status-zoom'))).toContain('100%');
      const viewport = (await fresh.locator('.canvas-viewport').boundingBox())!;
      const toolbox = (await fresh.locator('.canvas-toolbox').boundingBox())!;
      const clear = toolbox.x + toolbox.width;
      const band = reported.pieces.find((p) => p.name === '领')!.bounds;
      const board = (await fresh.locator('.artboard').boundingBox())!;
      expect(
        Math.abs(board.x + band.left + band.width / 2 - (clear + (viewport.x + viewport.width - clear) / 2)),
      ).toBeLessThan(2);
      expect(
        Math.abs(board.y + band.top + band.height / 2 - (viewport.y + viewport.height / 2)),
      ).toBeLessThan(2);
      await snapshot(fresh, '13h-garment-piece-shown');
    } finally {
      await fresh.context().close();
    }
  });

  it('sets how a piece lies on the marker in the pieces table, and previews again with it', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    try {
      await identifyUploaded(fresh, piecesPsd);
      const { preview, table } = await previewTable(fresh);
      const turn = table.getByRole('combobox', { name: '版图上的方向 前片' });
      // Upright as identified; the designer says the front lies upside down on the marker.
      expect(await turn.inputValue()).toBe('0');
      await turn.selectOption('180');
      // And that the back lies 3° askew: a tilt out of the tool's range is marked and sends nothing.
      const tilt = table.getByRole('spinbutton', { name: '斜放角度 后片' });
      expect(await tilt.inputValue()).toBe('0');
      await tilt.fill('60');
      expect(await tilt.getAttribute('aria-invalid')).toBe('true');
      await eventually(() =>
        preview.getByRole('button', { name: '按所选部位重新预览（1 片）' }).isDisabled(),
      ).toBe(true);
      await tilt.fill('-3.5');
      expect(await tilt.getAttribute('aria-invalid')).toBe('false');
      const again = preview.getByRole('button', { name: '按所选部位重新预览（2 片）' });
      await fresh.getByRole('button', { name: '返回工具列表' }).click();
      await table.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13d-garment-turn-picked');
      await again.click();
      await finished(lastCard(fresh, '确认裁片部位'));
      const confirm = lastCard(fresh, '确认裁片部位');
      expect(await textOf(confirm)()).toContain('180');
      expect(await textOf(confirm)()).toContain('-3.5');
      await eventually(countOf(feed(fresh).getByRole('article', { name: '生成花样预览' }))).toBe(2);
      const second = lastCard(fresh, '生成花样预览');
      await finished(second);
      await second.getByRole('button', { name: '确认套图' }).click();
      const kept = second.getByRole('table', { name: '裁片' });
      await eventually(() => kept.getByRole('combobox', { name: '版图上的方向 前片' }).inputValue()).toBe(
        '180',
      );
      expect(await kept.getByRole('combobox', { name: '版图上的方向 后片' }).inputValue()).toBe('0');
      expect(await kept.getByRole('spinbutton', { name: '斜放角度 后片' }).inputValue()).toBe('-3.5');
      expect(await kept.getByRole('spinbutton', { name: '斜放角度 前片' }).inputValue()).toBe('0');
      await kept.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13e-garment-turn-kept');
    } finally {
      await fresh.context().close();
    }
  });

  it('marks the pieces whose part is in doubt in the pieces table, with the alternative', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    try {
      const identified = await identifyUploaded(fresh);
      // The card says which parts are in doubt, in the designer's words, before any preview.
      const note = identified.getByRole('note');
      await eventually(textOf(note)).toContain('以下裁片的部位不确定');
      expect(await textOf(note)()).toMatch(
        new RegExp(`(${NAMES.none.front}|${NAMES.none.back})（同一裁片：[^）]+）：前片 \\d+%，也可能是后片`),
      );
      // The twins are one outline cut twice: one question for both, the answer for one deciding the other.
      const twinLines = note.getByRole('listitem').filter({ hasText: /也可能是(前片|后片)/ });
      await expect(countOf(twinLines)()).resolves.toBe(1);
      expect(await textOf(twinLines)()).toMatch(
        new RegExp(`同一裁片：(${NAMES.none.front}|${NAMES.none.back})）`),
      );
      // The overview image above it marks the same pieces (orange outline, a ？ after the part).
      const overview = identified.getByRole('img').first();
      expect(await overview.getAttribute('alt')).toContain('待确认');
      await overview.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13c-garment-identify-overview');
      await note.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13c-garment-identify-unsure');
      const { preview, table } = await previewTable(fresh);
      await eventually(textOf(table)).toContain('也可能是');
      const rows = table.getByRole('row');
      const doubtful: string[] = [];
      for (let i = 1; i < (await rows.count()); i++) {
        const row = rows.nth(i);
        const text = (await row.textContent()) ?? '';
        if (!text.includes('也可能是')) continue;
        // The part picker shows the part read; the note names the other one.
        const part = await row.getByRole('combobox').first().inputValue();
        const name = (await row.getByRole('cell').first().textContent())?.trim();
        doubtful.push(`${name}:${part}:${/也可能是(\S+?) /.exec(text)?.[1]}`);
      }
      // The twins: read as a front or a back, each with the other body part as its alternative.
      expect(doubtful.some((t) => t.startsWith(NAMES.none.front) || t.startsWith(NAMES.none.back))).toBe(
        true,
      );
      expect(doubtful.join()).toMatch(/:front:后片|:back:前片/);
      await fresh.getByRole('button', { name: '返回工具列表' }).click();
      await table.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13-garment-pieces-in-doubt');

      // The designer settles it: picks the other part for one twin and previews again.
      const doubted = rows.filter({ hasText: /也可能是(前片|后片)/ }).first();
      const name = (await doubted.getByRole('cell').first().textContent())!.trim();
      const twin = rows.filter({
        has: fresh.locator('td.piece-name').filter({ hasText: new RegExp(`^${name}$`) }),
      });
      const select = table.getByRole('combobox', { name: `部位 ${name}` });
      const was = await select.inputValue();
      const other = was === 'front' ? 'back' : 'front';
      await select.selectOption(other);
      await eventually(textOf(twin)).toContain('原识别为');
      await snapshot(fresh, '13a-garment-part-picked');
      // A type and colour set for the twin before previewing again are not dropped by the new preview's table.
      const twinName = name === NAMES.none.front ? NAMES.none.back : NAMES.none.front;
      await table.getByRole('combobox', { name: `类型 ${twinName}` }).selectOption('solid');
      await table.getByLabel(`颜色 ${twinName}`).fill('#ff0000');
      const again = preview.getByRole('button', { name: '按所选部位重新预览（1 片）' });
      await again.click();
      await eventually(countOf(feed(fresh).getByRole('article', { name: '确认裁片部位' }))).toBe(1);
      await finished(lastCard(fresh, '确认裁片部位'));
      await eventually(countOf(feed(fresh).getByRole('article', { name: '生成花样预览' }))).toBe(2);
      const second = lastCard(fresh, '生成花样预览');
      await finished(second);
      // The first preview's decisions are gone; the new one asks again.
      const first = feed(fresh).getByRole('article', { name: '生成花样预览' }).first();
      await eventually(countOf(first.getByRole('button', { name: '确认套图' }))).toBe(0);
      await eventually(countOf(first.getByRole('table', { name: '裁片' }))).toBe(0);
      await second.getByRole('button', { name: '确认套图' }).click();
      const confirmed = second.getByRole('table', { name: '裁片' });
      await eventually(textOf(confirmed)).toContain('已确认');
      expect(await confirmed.getByRole('combobox', { name: `部位 ${name}` }).inputValue()).toBe(other);
      // The twin is the other body part now, and neither is in doubt.
      expect(await confirmed.getByRole('combobox', { name: `部位 ${twinName}` }).inputValue()).toBe(was);
      const rowOf = (n: string) =>
        confirmed
          .getByRole('row')
          .filter({ has: fresh.locator('td.piece-name').filter({ hasText: new RegExp(`^${n}$`) }) });
      expect(await textOf(rowOf(name))()).toContain('已确认');
      expect(await textOf(rowOf(twinName))()).not.toContain('也可能是');
      expect(await confirmed.getByRole('combobox', { name: `类型 ${twinName}` }).inputValue()).toBe('solid');
      expect(await textOf(rowOf(twinName))()).toContain('#ff0000');
      await confirmed.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13b-garment-parts-confirmed');
    } finally {
      await fresh.context().close();
    }
  });

  it('records the answer to a doubt picked in the identify card, and the doubt is gone', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    try {
      const identified = await identifyUploaded(fresh);
      const note = identified.getByRole('note');
      // Each doubtful piece has a button for what it was read as and for its alternative; one of the twins:
      const line = note
        .getByRole('listitem')
        .filter({ hasText: /也可能是(前片|后片)/ })
        .first();
      const text = (await line.textContent())!;
      const name = askedPiece(text);
      const other = /也可能是(前片|后片)/.exec(text)![1]!;
      await expect(countOf(line.locator('.doubt-answers').getByRole('button'))()).resolves.toBe(2);
      // Each button names its piece to a screen reader, as the chat message would say it.
      await line.getByRole('button', { name: `${name} 是${other}`, exact: true }).click();
      const confirmed = lastCard(fresh, '确认裁片部位');
      await finished(confirmed);
      // The answer is recorded: the piece is the part picked, decided by the user; its twin is the other body
      // part, and neither is in doubt any more (the sleeves may still be).
      const result = JSON.parse(await textOf(confirmed.locator('.card-result pre'))()) as {
        pieces: {
          name: string;
          part: string;
          part_label: string;
          decided_by: string;
          alternative?: string;
        }[];
      };
      const piece = result.pieces.find((p) => p.name === name);
      expect(piece).toMatchObject({ part_label: other, decided_by: 'user', confidence: 1 });
      const body = result.pieces.filter((p) => p.part === 'front' || p.part === 'back');
      expect(body.map((p) => p.part).sort()).toEqual(['back', 'front']);
      expect(body.filter((p) => p.alternative)).toEqual([]);
      expect(await textOf(confirmed)()).not.toMatch(/也可能是(前片|后片)/);
      // The note that asked shows the answer given.
      await eventually(textOf(note)).toContain('已记录你的回答');
      const was = other === '前片' ? '后片' : '前片';
      expect(await attrOf(line.getByRole('button', { name: `是${other}` }), 'aria-pressed')()).toBe('true');
      expect(await attrOf(line.getByRole('button', { name: `是${was}` }), 'aria-pressed')()).toBe('false');
      await note.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13d-garment-doubt-answered');
      // A slip is corrected there too: the other button records the other part.
      await line.getByRole('button', { name: `${name} 是${was}`, exact: true }).click();
      await eventually(countOf(feed(fresh).getByRole('article', { name: '确认裁片部位' }))).toBe(2);
      const corrected = lastCard(fresh, '确认裁片部位');
      await finished(corrected);
      const again = JSON.parse(await textOf(corrected.locator('.card-result pre'))()) as typeof result;
      expect(again.pieces.find((p) => p.name === name)).toMatchObject({
        part_label: was,
        decided_by: 'user',
      });
      expect(await attrOf(line.getByRole('button', { name: `是${was}` }), 'aria-pressed')()).toBe('true');
      // Neither part offered may be right: any other part is one choice away, on the same line.
      const sleeveLine = note
        .getByRole('listitem')
        .filter({ hasText: /：(左袖|右袖)/ })
        .first();
      const sleeveName = askedPiece((await sleeveLine.textContent())!);
      const others = sleeveLine.getByRole('combobox', { name: `${sleeveName} 是其他部位` });
      const offered = await others.locator('option').allTextContents();
      expect(offered).toContain('袖口');
      expect(offered).not.toContain('口袋');
      await others.selectOption({ label: '袖口' });
      await eventually(countOf(feed(fresh).getByRole('article', { name: '确认裁片部位' }))).toBe(3);
      const picked = lastCard(fresh, '确认裁片部位');
      await finished(picked);
      const third = JSON.parse(await textOf(picked.locator('.card-result pre'))()) as typeof result;
      expect(third.pieces.find((p) => p.name === sleeveName)).toMatchObject({
        part: 'cuff',
        decided_by: 'user',
      });
      expect(await others.evaluate((s) => (s as { value: string }).value)).toBe('cuff');
      // The first piece's answer is still shown as given.
      expect(await attrOf(line.getByRole('button', { name: `是${was}` }), 'aria-pressed')()).toBe('true');
      await note.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13e-garment-doubt-other-part');
    } finally {
      await fresh.context().close();
    }
  });

  it('names the parts in English in English mode (the doubt note’s lines, buttons and other parts)', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    try {
      const identified = await identifyUploaded(fresh);
      await eventually(textOf(identified.getByRole('note'))).toMatch(/也可能是(前片|后片)/);
      const chinese = () => shownPicture(identified.locator('.image-button img'));
      await eventually(chinese).not.toBeNull();
      const drawnInChinese = await chinese();
      await fresh.getByRole('button', { name: '切换为英文界面' }).click();
      // The card is labelled in English now too.
      const note = lastCard(fresh, 'Identify Pieces').getByRole('note');
      const line = note
        .getByRole('listitem')
        .filter({ hasText: /or (Front|Back)/ })
        .first();
      await eventually(visibleOf(line)).toBe(true);
      const text = (await line.textContent())!;
      expect(text).not.toMatch(/[前后]片|袖|领|口袋|其他/);
      const [read, other] = /: (Front|Back) \d+%, or (Front|Back)/.exec(text)!.slice(1);
      expect(read).not.toBe(other);
      const name = askedPiece(text.replace(/^(\S+ \d+).*$/s, '$1：'));
      await eventually(
        visibleOf(line.getByRole('button', { name: `${name} is ${other}`, exact: true })),
      ).toBe(true);
      expect(await textOf(line.getByRole('button', { name: `${name} is ${read}`, exact: true }))()).toBe(
        `It is ${read}`,
      );
      const others = await line.getByRole('combobox').locator('option').allTextContents();
      expect(others).toEqual(expect.arrayContaining(['Left sleeve', 'Right sleeve', 'Collar', 'Other']));
      // The overview's caption too: the tool gives it in English beside the Chinese.
      const caption = lastCard(fresh, 'Identify Pieces').locator('figcaption');
      await eventually(textOf(caption)).toMatch(/^Pieces identified: .+ = (Front|Back)\?/);
      expect(await textOf(caption)()).not.toMatch(/[前后]片|裁片/);
      // And the picture: the tool draws it again with the labels in English, and the card shows that one.
      const english = () => shownPicture(lastCard(fresh, 'Identify Pieces').locator('.image-button img'));
      // Read until a picture has loaded that is not the Chinese one (none shows while the blob is replaced).
      await eventually(async () => {
        const shown = await english();
        return shown !== null && shown !== drawnInChinese;
      }).toBe(true);
      await note.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13c-garment-doubt-english');
    } finally {
      await fresh.context().close();
    }
  });

  it('offers a second alternative when the piece may be one of two other parts, and records it', async () => {
    const fresh = await openPage(browser, `${server.url}/`);
    // The layer thumbnails the cards show their pieces with.
    const pictures: string[] = [];
    fresh.on('request', (r) => {
      if (/\/layers\/\d+\/thumbnail\.png\?/.test(r.url())) pictures.push(r.url());
    });
    try {
      const identified = await identifyUploaded(fresh, blazerPsd);
      const note = identified.getByRole('note');
      await eventually(textOf(note)).toContain('以下裁片的部位不确定');
      // In the order the tool asks them (its ask_order): the first answer is the one that helps most.
      const asked = (await note.locator('li .doubt-piece > span:first-child').allTextContents()).map(
        askedPiece,
      );
      const reported = JSON.parse(await textOf(identified.locator('.card-result pre'))()) as {
        ask_order: string[];
      };
      expect(asked.length).toBeGreaterThan(2);
      expect(asked).toEqual(reported.ask_order);
      // Each with its piece beside it: its layer's own pixels, the marker being the document shown.
      for (const item of await note.getByRole('listitem').all())
        expect((await pictureOf(item.locator('.piece-thumb > img'))).ink).toBeGreaterThan(0.4);
      // Pointed at, the piece asked about is outlined on the canvas.
      await note.getByRole('listitem').first().hover();
      await eventually(() => fresh.locator('.artboard .piece-mark').getAttribute('data-piece')).toBe(
        asked[0],
      );
      // A piece with two alternatives: the first with its odds, the second by name, e.g. "后片 11% / 左袖".
      const line = note.getByRole('listitem').filter({ hasText: ' / ' }).first();
      const says = (await line.locator('.doubt-piece > span').first().textContent())!;
      const name = askedPiece(says);
      const [, first, second] = /：\S+ \d+%，也可能是(\S+) \d+% \/ (\S+)$/.exec(says)!;
      // Three buttons: the part read and the two it may be instead; the list holds every other part.
      await expect(countOf(line.locator('.doubt-answers').getByRole('button'))()).resolves.toBe(3);
      const offered = await line.getByRole('combobox').locator('option').allTextContents();
      expect(offered).not.toContain(first);
      expect(offered).not.toContain(second);
      await note.scrollIntoViewIfNeeded();
      await snapshot(fresh, '13f-garment-doubt-two-alternatives');
      await line.getByRole('button', { name: `${name} 是${second}`, exact: true }).click();
      const confirmed = lastCard(fresh, '确认裁片部位');
      await finished(confirmed);
      const result = JSON.parse(await textOf(confirmed.locator('.card-result pre'))()) as {
        pieces: { name: string; part_label: string; decided_by: string }[];
      };
      expect(result.pieces.find((p) => p.name === name)).toMatchObject({
        part_label: second,
        decided_by: 'user',
      });
      // The answer's card asks about the pieces left, with their layers' thumbnails.
      expect(openDoubtCount(result)).toBeGreaterThan(0);
      await eventually(countOf(confirmed.locator('.piece-thumb > img'))).toBeGreaterThan(0);
      expect(pictures.length).toBeGreaterThan(0);
    } finally {
      await fresh.context().close();
    }
  });
});

/** How many pieces a result still asks about. */
function openDoubtCount(result: { pieces: unknown[] } & Record<string, unknown>): number {
  return result.needs_confirmation === true && Array.isArray(result.ask_order) ? result.ask_order.length : 0;
}

/** The tool result of the named call in the conversation a request carries. */
function resultOf(request: ScriptedRequest, name: string): Record<string, unknown> | null {
  const ids = new Map<string, string>();
  for (const m of request.body.messages) {
    for (const call of (m.tool_calls ?? []) as { id: string; function: { name: string } }[])
      ids.set(call.id, call.function.name);
  }
  const answer = [...request.body.messages]
    .reverse()
    .find((m) => m.role === 'tool' && ids.get(m.tool_call_id ?? '') === name);
  return answer ? (JSON.parse(answer.content as string) as Record<string, unknown>) : null;
}

function lastUserText(request: ScriptedRequest): string {
  const user = [...request.body.messages].reverse().find((m) => m.role === 'user');
  const content = user?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe('the studio with a model', { timeout: 600_000 }, () => {
  let model: ScriptedModel;
  let server: TestServer;
  let page: Page;

  beforeAll(async () => {
    model = await startScriptedModel();
    server = await startTestServer({
      model: modelConfigFrom({}, { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url }),
    });
    page = await openPage(browser, `${server.url}/`);
  });

  afterAll(async () => {
    await page?.context().close();
    await server?.close();
    await model?.close();
  });

  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await snapshot(page, `failed-${task.name.slice(0, 40)}`);
  });

  it('sends a message and shows the model’s tool cards, its answer and the new canvas', async () => {
    model.push(
      {
        toolCalls: [
          { name: 'create_document', arguments: { width: 900, height: 600, name: '对话海报' } },
          { name: 'create_text_layer', arguments: { text: '新品上市', x: 60, y: 160, font_size: 140 } },
        ],
      },
      { text: '已新建“对话海报”：\n- 尺寸 900 × 600\n- 标题 **新品上市**' },
    );
    await eventually(textOf(page.getByRole('banner'))).toContain('scripted-model');
    await page.getByRole('textbox', { name: '消息' }).fill('做一张海报，标题写“新品上市”');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('做一张海报');
    await finished(lastCard(page, '新建文档'));
    await finished(lastCard(page, '创建文字'));
    await eventually(textOf(feed(page))).toContain('已新建“对话海报”');
    // The answer's Markdown list and bold are shown as such, not as asterisks.
    await eventually(textOf(feed(page).locator('.bubble.assistant li strong'))).toBe('新品上市');
    await eventually(attrOf(page.getByRole('tab', { name: '对话海报' }), 'aria-selected')).toBe('true');
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);
    // The model saw the registry's tools and the user's words.
    expect(model.requests[0]!.body.tools?.length).toBeGreaterThan(70);
    expect(lastUserText(model.requests[0]!)).toContain('做一张海报');
    await snapshot(page, '13-chat');

    // The conversation is the server's: a reload shows it again.
    await page.reload();
    await eventually(textOf(feed(page))).toContain('做一张海报');
    await finished(lastCard(page, '创建文字'));
    await eventually(textOf(feed(page))).toContain('已新建“对话海报”');
  });

  it('previews the garment, 确认套图 tells the model, which applies and verifies; the score shows', async () => {
    await uploadGarment(page);
    model.push(
      {
        toolCalls: [
          { name: 'identify_pieces', arguments: {} },
          { name: 'generate_garment_preview', arguments: {} },
        ],
      },
      { text: '预览已生成，请确认。' },
      (request) => {
        // The confirmation is the user's own message, sent by the button.
        if (!lastUserText(request).includes('确认套图'))
          return { status: 500, error: 'expected the confirmation' };
        const preview = resultOf(request, 'generate_garment_preview');
        return {
          toolCalls: [
            { name: 'extract_and_apply_all_pieces', arguments: { pieces: preview?.proposed_pieces ?? [] } },
            { name: 'verify_pattern_result', arguments: {} },
          ],
        };
      },
      { text: '套图完成，评分见上方。' },
    );
    await page.getByRole('textbox', { name: '消息' }).fill('用这张照片给裁片套图');
    await page.getByRole('button', { name: '发送' }).click();
    const preview = lastCard(page, '生成花样预览');
    await finished(preview);
    await eventually(textOf(feed(page))).toContain('预览已生成，请确认。');
    await snapshot(page, '14-chat-preview');
    await preview.getByRole('button', { name: '确认套图' }).click();
    await finished(lastCard(page, '提取并套图'));
    await expectScore(page);
    await eventually(textOf(feed(page))).toContain('套图完成');
    // The decision is made: the preview's buttons are gone, and the canvas shows the applied print.
    await eventually(countOf(preview.getByRole('button', { name: '确认套图' }))).toBe(0);
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.02);
    expect(model.remaining).toBe(0);
    // The files pane lists the kept result images under long names, with the transcript under the 会话记录
    // heading; every row keeps its download button in view.
    await page.getByRole('tab', { name: '文件' }).click();
    await page.getByText(/^会话记录（/).click();
    await eventually(textOf(page.getByRole('list', { name: '会话记录' }))).toContain('chat-images/');
    const pane = (await page.getByRole('complementary', { name: '面板' }).boundingBox())!;
    const downloads = page.locator('.file-list').getByRole('button', { name: /^下载 / });
    expect(await downloads.count()).toBeGreaterThan(2);
    for (const box of await downloads.evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect().toJSON()),
    )) {
      expect(box.right).toBeLessThanOrEqual(pane.x + pane.width + 0.5);
    }
    await snapshot(page, '15-chat-verified');
  });

  it('no longer offers 确认套图 on a preview the model applied on its own, after a reload too', async () => {
    // The marker the test before applied, previewed and applied again.
    model.push(
      {
        toolCalls: [
          { name: 'identify_pieces', arguments: {} },
          { name: 'generate_garment_preview', arguments: {} },
        ],
      },
      (request) => ({
        toolCalls: [
          {
            name: 'extract_and_apply_all_pieces',
            arguments: { pieces: resultOf(request, 'generate_garment_preview')?.proposed_pieces ?? [] },
          },
        ],
      }),
      { text: '已按预览直接套图。' },
    );
    const previews = feed(page).getByRole('article', { name: '生成花样预览' });
    const before = await previews.count();
    await page.getByRole('textbox', { name: '消息' }).fill('直接套图，不用等我确认');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(countOf(previews)).toBe(before + 1);
    await eventually(textOf(feed(page))).toContain('已按预览直接套图');
    expect(model.remaining).toBe(0);
    for (const shown of ['after the turn', 'after a reload']) {
      if (shown === 'after a reload') {
        await page.reload();
        await eventually(textOf(feed(page))).toContain('已按预览直接套图');
      }
      const preview = previews.last();
      await eventually(textOf(preview)).toContain('这份预览已套用到裁片');
      expect(await countOf(preview.getByRole('button', { name: '确认套图' }))(), shown).toBe(0);
      expect(await countOf(preview.getByRole('button', { name: '重新生成' }))(), shown).toBe(1);
    }
    await previews.last().scrollIntoViewIfNeeded();
    await snapshot(page, '15b-chat-applied-by-model');
  });

  it('says the answer to a doubt to the model, which records it', async () => {
    await upload(page, '上传文档', twinsPsd);
    await finished(lastCard(page, '打开文档'));
    const PARTS: Record<string, string> = { 前片: 'front', 后片: 'back' };
    model.push(
      { toolCalls: [{ name: 'identify_pieces', arguments: {} }] },
      { text: '有两片前后片分不清，请确认。' },
      (request) => {
        // The user's answer, as the card's button says it: "<layer> 是<part>".
        const m = /(\S+ \d+) 是(前片|后片)/.exec(lastUserText(request));
        if (!m) return { status: 500, error: 'expected the answer' };
        return {
          toolCalls: [
            { name: 'confirm_piece_parts', arguments: { pieces: [{ name: m[1], part: PARTS[m[2]!] }] } },
          ],
        };
      },
      { text: '已按你的回答记录。' },
    );
    // The chat test before this one identified pieces too: wait for this call's own card, not that one.
    const cards = feed(page).getByRole('article', { name: '识别裁片部位' });
    const before = await cards.count();
    await page.getByRole('textbox', { name: '消息' }).fill('识别一下裁片');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(countOf(cards)).toBe(before + 1);
    const identified = cards.last();
    await finished(identified);
    await eventually(textOf(feed(page))).toContain('请确认');
    // What the designer sees: the overview with the pieces in doubt outlined in orange, and the questions.
    await identified
      .getByRole('img')
      .first()
      .evaluate((e) => (e as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }));
    await snapshot(page, '16-chat-identify-doubt');
    const line = identified
      .getByRole('note')
      .getByRole('listitem')
      .filter({ hasText: /也可能是(前片|后片)/ })
      .first();
    const other = /也可能是(前片|后片)/.exec((await line.textContent())!)![1]!;
    await line.getByRole('button', { name: `是${other}` }).click();
    const confirmed = lastCard(page, '确认裁片部位');
    await finished(confirmed);
    await eventually(textOf(feed(page))).toContain('已按你的回答记录');
    const result = JSON.parse(await textOf(confirmed.locator('.card-result pre'))()) as {
      pieces: { part_label: string; decided_by: string }[];
    };
    expect(result.pieces.filter((p) => p.decided_by === 'user').map((p) => p.part_label)).toEqual([other]);
    expect(model.remaining).toBe(0);
  });

  it('stops a reply that takes too long', async () => {
    model.push({ text: '太慢了', delayMs: 30_000 });
    await page.getByRole('textbox', { name: '消息' }).fill('慢慢想');
    await page.getByRole('button', { name: '发送' }).click();
    await eventually(textOf(feed(page))).toContain('慢慢想');
    await page.getByRole('button', { name: '停止' }).click();
    await eventually(textOf(feed(page).getByRole('alert').last())).toContain('cancelled');
    await eventually(visibleOf(page.getByRole('button', { name: '发送' }))).toBe(true);
    expect(await textOf(feed(page))()).not.toContain('太慢了');
  });
});
