/**
 * The studio's forms as a designer meets them in real Chromium, at the usual window sizes and in both languages:
 * the `pieces` table of 提取并套图 inside its pane (nothing cut, nothing scrolled sideways), a new row's 裁片类型
 * at the first type rather than blank, English labels on every field of every tool (derived from the registry's
 * names), and the garment flow's pieces table, the history, the blend modes and the file list in English.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, snapshot, textOf } from '../support/browser.js';
import { garmentDocument, garmentPhoto } from '../support/garment-fixtures.js';
import { newSession, ok, tempDir } from '../support/session.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('studio-forms');

const WORDS = {
  zh: { toolbox: '工具箱', back: '返回工具列表', addRow: '添加一行', run: '运行', apply: '提取并套图' },
  en: {
    toolbox: 'Toolbox',
    back: 'Back to the tools',
    addRow: 'Add a row',
    run: 'Run',
    apply: 'Apply Pattern to Pieces',
  },
} as const;

async function openTool(page: Page, lang: 'zh' | 'en', label: string) {
  await page.getByRole('tab', { name: WORDS[lang].toolbox }).click();
  await page.locator('.palette-groups').getByRole('button', { name: label, exact: true }).click();
}

/** The tool calls the page sends, as their JSON bodies. */
function callsSent(page: Page): { tool_calls: { function: { name: string; arguments: string } }[] }[] {
  const sent: { tool_calls: { function: { name: string; arguments: string } }[] }[] = [];
  page.on('request', (r: Request) => {
    if (r.method() === 'POST' && /\/tool-calls/.test(r.url())) sent.push(r.postDataJSON());
  });
  return sent;
}

/**
 * What does not fit inside `root` (read in the page, the tests' TypeScript has no DOM types): a box scrolled
 * sideways, a control or label past the root's edges, text cut inside its box, and a picker narrower than its
 * longest option (a select never wraps: it cuts).
 */
function unfitting(root: Locator): Promise<string[]> {
  return root.evaluate((el) => {
    type Box = { left: number; right: number };
    type El = {
      tagName: string;
      className: string;
      textContent: string | null;
      scrollWidth: number;
      clientWidth: number;
      getBoundingClientRect(): Box;
      querySelectorAll(s: string): Iterable<El>;
      options?: Iterable<{ text: string }>;
    };
    const g = globalThis as unknown as {
      getComputedStyle(e: El): {
        display: string;
        visibility: string;
        overflowX: string;
        font: string;
        paddingLeft: string;
        paddingRight: string;
      };
      document: {
        createElement(t: 'canvas'): {
          getContext(k: '2d'): { font: string; measureText(t: string): { width: number } };
        };
      };
    };
    const r = el as unknown as El;
    const edge = r.getBoundingClientRect();
    const name = (e: El) =>
      `${e.tagName.toLowerCase()}.${e.className} “${(e.textContent ?? '').slice(0, 20)}”`;
    const out: string[] = [];
    const ctx = g.document.createElement('canvas').getContext('2d');
    for (const e of [r, ...r.querySelectorAll('*')]) {
      const style = g.getComputedStyle(e);
      // An option is drawn in its picker's popup, not in the page.
      if (e.tagName === 'OPTION' || style.display === 'none' || style.visibility === 'hidden') continue;
      const b = e.getBoundingClientRect();
      if (b.left < edge.left - 0.5 || b.right > edge.right + 0.5) out.push(`past the edge: ${name(e)}`);
      const scrolls = style.overflowX !== 'visible' || /^(LABEL|TH|TD|P|SPAN|CODE)$/.test(e.tagName);
      if (scrolls && e.tagName !== 'INPUT' && e.scrollWidth > e.clientWidth + 1)
        out.push(`cut or scrolled: ${name(e)} ${e.scrollWidth} > ${e.clientWidth}`);
      if (e.tagName === 'SELECT') {
        ctx.font = style.font;
        const longest = Math.max(...[...(e.options ?? [])].map((o) => ctx.measureText(o.text).width));
        // The text, its padding and the arrow (about 16 px in Chromium).
        const room =
          e.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 16;
        if (longest > room) out.push(`picker cuts its options: ${name(e)} ${Math.round(longest)} > ${room}`);
      }
    }
    return out;
  });
}

describe('the pieces table of 提取并套图', () => {
  it('fits its pane at 1280 and 1440 px windows, in Chinese and in English, the longest type in full', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '套图' })]);
    for (const lang of ['zh', 'en'] as const) {
      for (const [width, height] of [
        [1280, 800],
        [1440, 900],
      ] as const) {
        const page = await studio.open(id, width, height, lang);
        await openTool(page, lang, WORDS[lang].apply);
        const form = page.getByRole('form', { name: WORDS[lang].apply });
        await form.getByRole('button', { name: WORDS[lang].addRow }).click();
        await form.getByRole('button', { name: WORDS[lang].addRow }).click();
        await eventually(countOf(form.locator('.table-field select'))).toBe(2);
        await form.locator('.table-field select').first().selectOption('theme_pattern');
        await form.locator('.table-field input[type="text"]').first().fill('图层 1#2');
        await page.evaluate('document.fonts.ready');
        await snapshot(page, `forms-pieces-${width}-${lang}`);
        // The form's own fields: nothing scrolls sideways, nothing is cut, the help under the table included.
        expect(await unfitting(form.locator('.fields')), `${lang} ${width}`).toEqual([]);
        // Each cell wide enough to read what it holds: a layer name, a colour, a type.
        const widths = await form
          .locator('.row-cells input[type="text"], .row-cells select')
          .evaluateAll((els) => els.map((e) => (e as unknown as { clientWidth: number }).clientWidth));
        expect(Math.min(...widths)).toBeGreaterThanOrEqual(90);
        await page.context().close();
      }
    }
  });

  it('starts a new row’s 裁片类型 at the first type, shows it, and sends it', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '套图' })]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await openTool(page, 'zh', '提取并套图');
    const form = page.getByRole('form', { name: '提取并套图' });
    await form.getByRole('button', { name: '添加一行' }).click();
    const type = form.locator('.table-field select').first();
    await eventually(() => type.inputValue()).toBe('solid');
    // The picker shows it (a select whose value matches no option shows nothing).
    expect(await type.evaluate((e) => (e as unknown as { selectedIndex: number }).selectedIndex)).toBe(0);
    expect(await textOf(type.locator('option:checked'))()).toBe('纯色');
    // Labelled in its row as its column is named (第 1 行 › 裁片类型).
    const row = form.getByRole('group', { name: '第 1 行' });
    expect(await row.getByLabel('裁片类型', { exact: false }).inputValue()).toBe('solid');
    await row.getByLabel('裁片图层名称', { exact: false }).fill('背景');
    await form.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(() => sent.length).toBe(1);
    const call = sent[0]!.tool_calls[0]!.function;
    expect(call.name).toBe('extract_and_apply_all_pieces');
    expect(JSON.parse(call.arguments)).toEqual({ pieces: [{ name: '背景', type: 'solid' }] });

    // The same for another tool's table: a piece's 部位 starts at the first part.
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '确认裁片部位', exact: true }).click();
    const confirm = page.getByRole('form', { name: '确认裁片部位' });
    await confirm.getByRole('button', { name: '添加一行' }).click();
    const part = confirm.getByRole('group', { name: '第 1 行' }).getByLabel('部位', { exact: false });
    expect(await part.count()).toBe(1);
    await eventually(() => part.inputValue()).toBe('front');
    expect(await textOf(part.locator('option:checked'))()).toBe('前片');
  });
});

describe('the studio in English', () => {
  // It opens every tool's form in turn: about 25 s alone, over the minute with three test files beside it.
  it('labels every field of every tool in English, and leaves the Chinese labels as they were', {
    timeout: 300_000,
  }, async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: 'poster' })]);
    const page = await studio.open(id, 1280, 800, 'en');
    await page.getByRole('tab', { name: 'Toolbox' }).click();
    const chips = page.locator('.tool-chip');
    await eventually(countOf(chips)).toBeGreaterThan(40);
    const tools = await chips.allTextContents();
    const chinese: string[] = [];
    for (const label of tools) {
      // The layers pane's own buttons share some tools' labels (新建图层): the chip is the toolbox's.
      await page.locator('.palette-groups').getByRole('button', { name: label, exact: true }).click();
      const form = page.getByRole('form', { name: label });
      // A table's columns show once it has a row.
      for (const add of await form.getByRole('button', { name: 'Add a row' }).all()) await add.click();
      // Field and column labels, and the names a picker offers (document and layer names are the designer's).
      const words = await form.evaluate((f) => {
        const el = f as unknown as { querySelectorAll(s: string): Iterable<{ textContent: string | null }> };
        return (
          [
            ...el.querySelectorAll(
              '.field-head label, .row-cells label, .field-enum option, .row-cells option',
            ),
          ]
            // Without a required column's asterisk.
            .map((e) => (e.textContent ?? '').replace(/\*$/, ''))
            .filter(Boolean)
        );
      });
      for (const w of words) if (/[\u3400-\u9fff]/.test(w)) chinese.push(`${label}: ${w}`);
      if (label === 'Blend Mode') expect(words).toEqual(expect.arrayContaining(['Name', 'Mode', 'Multiply']));
      if (label === 'New Text Layer')
        expect(words).toEqual(expect.arrayContaining(['Text', 'X', 'Y', 'Font size', 'Color', 'Font name']));
      if (label === 'Apply Pattern to Pieces') {
        expect(words).toEqual(
          expect.arrayContaining(['Name', 'Type', 'Color', 'Description', 'Fill pattern']),
        );
        await snapshot(page, 'forms-english-apply');
      }
      await page.getByRole('button', { name: 'Back to the tools' }).click();
    }
    expect(chinese).toEqual([]);

    // Chinese mode as it was: the description's first clause, with the parameter's name beside it.
    const zh = await studio.open(id, 1280, 800, 'zh');
    await openTool(zh, 'zh', '创建文字');
    const form = zh.getByRole('form', { name: '创建文字' });
    expect(await form.locator('.field-head label').allTextContents()).toEqual([
      '文字内容',
      '文本框左上角的 x 坐标',
      '文本框左上角的 y 坐标',
      '字号',
      '文字颜色',
      '字体名称',
    ]);
    expect(await form.locator('.param-name').allTextContents()).toContain('font_size');
  });

  it('names history steps and blend modes in English, and keeps file names readable beside English buttons', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 200, height: 100, name: 'poster' }),
      toolCall('create_layer', { name: 'ink' }),
      toolCall('set_layer_blend_mode', { name: 'ink', mode: 'multiply' }),
      toolCall('save_document_as', { path: 'pieces.psd' }),
    ]);
    const page = await studio.open(id, 1280, 800, 'en');
    const side = page.getByRole('complementary', { name: 'Panels' });
    await eventually(() => side.locator('#layer-blend option:checked').textContent()).toBe('Multiply');
    await eventually(textOf(side.locator('.layer-list'))).toContain('Multiply');
    await side.getByRole('tab', { name: 'History' }).click();
    await eventually(() => side.locator('.history li').allTextContents()).toEqual([
      '0New Document',
      '1New Layer',
      '2Blend Mode',
    ]);
    await side.getByRole('tab', { name: 'Files' }).click();
    const name = side.locator('.file-name', { hasText: 'pieces.psd' });
    await eventually(countOf(name)).toBe(1);
    await snapshot(page, 'forms-english-files');
    // The whole name shows (it was cut to “piec…” by Open and Download), and the buttons stay in the pane.
    expect(await unfitting(side.locator('.file-list'))).toEqual([]);
  });

  it('fits the garment flow’s pieces table at 1280 px, English part names in full', async () => {
    const id = await createSession(studio.url);
    // A cut-piece document and a garment photo in the session's folder, identified, as after uploading them.
    const own = newSession(tempDir('atelier-studio-forms-'));
    await garmentDocument(own, 'zh');
    await ok(own, 'save_document_as', { path: 'pieces.psd' });
    const folder = path.join(studio.workspace, 'sessions', id);
    copyFileSync(path.join(own.workspace.root, 'pieces.psd'), path.join(folder, 'pieces.psd'));
    writeFileSync(path.join(folder, 'shirt.png'), await garmentPhoto('fill'));
    await okCalls(studio.url, id, [
      toolCall('open_document', { path: 'pieces.psd' }),
      toolCall('set_garment_photo', { path: 'shirt.png' }),
      toolCall('identify_pieces'),
    ]);
    const page = await studio.open(id, 1280, 800, 'en');
    await openTool(page, 'en', 'Preview Pattern');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const confirm = page.getByRole('button', { name: 'Confirm and apply' });
    await eventually(countOf(confirm)).toBe(1);
    await confirm.click();
    const table = page.locator('.pieces');
    await eventually(countOf(table.locator('.part-pick'))).toBe(5);
    await table.scrollIntoViewIfNeeded();
    await snapshot(page, 'forms-english-garment-table');
    expect(await unfitting(table)).toEqual([]);
    expect(await unfitting(page.locator('.feed'))).toEqual([]);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Piece',
      'Part',
      'Type / Color',
    ]);
  });

  it('starts a list of layers with the layers selected, as a single layer field starts with the current one', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '列表' }),
      toolCall('create_layer', { name: '红' }),
      toolCall('select_rect', { left: 10, top: 10, right: 60, bottom: 60 }),
      toolCall('fill_selection', { color: '#c62828' }),
      toolCall('create_layer', { name: '蓝' }),
      toolCall('select_rect', { left: 100, top: 10, right: 150, bottom: 60 }),
      toolCall('fill_selection', { color: '#1e40af' }),
      toolCall('create_layer', { name: '绿' }),
      toolCall('select_rect', { left: 200, top: 10, right: 250, bottom: 60 }),
      toolCall('fill_selection', { color: '#2e7d32' }),
      toolCall('deselect'),
      toolCall('select_layers', { names: ['红', '绿'] }),
    ]);
    const page = await studio.open(id);
    try {
      await openTool(page, 'zh', '移动多个图层');
      const list = page.locator('#param-move_layers-layer_names');
      const checked = () =>
        list
          .locator('label')
          .evaluateAll((labels) =>
            labels.flatMap((l) =>
              (l.querySelector('input') as { checked: boolean }).checked ? [l.textContent] : [],
            ),
          );
      await eventually(checked).toEqual(['绿', '红']);
      await page.getByLabel('水平位移').fill('5');
      await page.getByLabel('垂直位移').fill('0');
      await page.getByRole('button', { name: WORDS.zh.run }).click();
      const left = async (name: string) => {
        const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
          active: { layers: { name: string; bounds?: { left: number } }[]; history: { labels: string[] } };
        };
        return [
          state.active.layers.find((l) => l.name === name)?.bounds?.left,
          state.active.history.labels.at(-1),
        ];
      };
      await eventually(() => left('红')).toEqual([15, '移动多个图层']);
      expect(await left('绿')).toEqual([205, '移动多个图层']);
      expect(await left('蓝')).toEqual([100, '移动多个图层']);
    } catch (err) {
      await snapshot(page, 'failed-studio-forms-layers');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
