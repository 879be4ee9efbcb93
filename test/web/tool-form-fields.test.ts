/**
 * A tool form's fields as a polished form has them, in real Chromium: required fields (the schema's `required`)
 * marked with an asterisk named 必填, and a run with one left blank stopped at the field in Chinese with nothing
 * sent; multi-line text (a description that says how a line breaks) in a text area where Enter breaks the line
 * and the call carries the newline, without the model's note about `\n` showing in the help.
 */
import type { Locator, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { countOf, eventually, finished, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('tool-form-fields');

async function openTool(page: Page, label: string) {
  await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
  await page.getByRole('button', { name: label, exact: true }).click();
}

const form = (page: Page, label: string) => page.getByRole('form', { name: label });
const cards = (page: Page, label: string) =>
  page.getByRole('log', { name: '对话记录' }).getByRole('article', { name: label });
/** The field's control and its parts, read in the page (the tests' TypeScript has no DOM types). */
const fieldOf = (control: Locator) =>
  control.evaluate((e) => {
    const el = e as unknown as {
      tagName: string;
      value: string;
      getAttribute(n: string): string | null;
      closest(s: string): { querySelector(s: string): { textContent: string } | null } | null;
    };
    const doc = (globalThis as unknown as { document: Record<string, unknown> }).document as unknown as {
      activeElement: unknown;
      getElementById(id: string): { textContent: string } | null;
    };
    const described = el.getAttribute('aria-describedby');
    return {
      tag: el.tagName.toLowerCase(),
      value: el.value,
      required: el.getAttribute('aria-required') === 'true',
      invalid: el.getAttribute('aria-invalid') === 'true',
      error: described ? (doc.getElementById(described)?.textContent ?? null) : null,
      help: el.closest('.field')?.querySelector('.field-help')?.textContent ?? null,
      focused: doc.activeElement === e,
    };
  });

/** The tool calls the page sends, as their JSON bodies. */
function callsSent(page: Page): unknown[] {
  const sent: unknown[] = [];
  page.on('request', (r: Request) => {
    if (r.method() === 'POST' && /\/tool-calls/.test(r.url())) sent.push(r.postDataJSON());
  });
  return sent;
}

describe('a tool form’s fields', () => {
  it('marks the required fields and says at the field, in Chinese, which ones a run left blank, sending nothing', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '海报' })]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await openTool(page, '创建文字');
    const f = form(page, '创建文字');
    const text = f.getByLabel('文字内容', { exact: true });
    const x = f.getByLabel('文本框左上角的 x 坐标', { exact: true });
    const y = f.getByLabel('文本框左上角的 y 坐标', { exact: true });
    const size = f.getByLabel('字号', { exact: true });
    const color = f.getByLabel('文字颜色', { exact: true });
    const font = f.getByLabel('字体名称', { exact: true });

    // text, x, y and font_size are required (the schema's `required`): an asterisk named 必填 beside each.
    await eventually(countOf(f.getByRole('img', { name: '必填' }))).toBe(4);
    for (const field of [text, x, y, size]) expect((await fieldOf(field)).required).toBe(true);
    expect((await fieldOf(x)).help).toBe('文本框左上角的 x 坐标（像素）');
    for (const field of [color, font]) {
      expect((await fieldOf(field)).required).toBe(false);
      expect((await fieldOf(field)).help).toContain('可选');
    }
    const marks = await f
      .locator('.field')
      .filter({ has: page.getByRole('img', { name: '必填' }) })
      .locator('label')
      .allTextContents();
    expect(marks).toEqual(['文字内容', '文本框左上角的 x 坐标', '文本框左上角的 y 坐标', '字号']);

    // Run with all four blank: each says so, the first has the keys, nothing is sent and nothing changes.
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(async () => (await fieldOf(text)).error).toBe('必填：请填写后再运行');
    for (const field of [text, x, y, size]) {
      expect(await fieldOf(field)).toMatchObject({ invalid: true, error: '必填：请填写后再运行' });
    }
    expect((await fieldOf(text)).focused).toBe(true);
    expect(await fieldOf(color)).toMatchObject({ invalid: false, error: null });
    await snapshot(page, 'tool-form-required');

    // Filling two in clears their words; the run still stops at the other two.
    await text.fill('春季新品');
    await x.fill('40');
    expect(await fieldOf(text)).toMatchObject({ invalid: false, error: null });
    expect(await fieldOf(x)).toMatchObject({ invalid: false, error: null });
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(async () => (await fieldOf(y)).focused).toBe(true);
    expect(await fieldOf(y)).toMatchObject({ invalid: true, error: '必填：请填写后再运行' });
    expect(await fieldOf(size)).toMatchObject({ invalid: true, error: '必填：请填写后再运行' });
    expect(await fieldOf(x)).toMatchObject({ invalid: false, error: null });
    expect(sent).toEqual([]);
    expect(await countOf(cards(page, '创建文字'))()).toBe(0);
    const [before] = await okCalls(studio.url, id, [toolCall('get_document_info')]);
    expect(before).toMatchObject({ document: { layer_count: 1 } });

    // Everything else stays the server's to judge: a size past its limit is sent and answered in Chinese.
    await y.fill('60');
    await size.fill('999999');
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(textOf(cards(page, '创建文字').last())).toContain('失败');
    expect(await textOf(cards(page, '创建文字').last().getByRole('alert'))()).toContain('font_size');
    expect(sent).toHaveLength(1);
    await size.fill('48');
    await f.getByRole('button', { name: '运行', exact: true }).click();
    // The failed card was never handed to `finished`, so wait for the new card before judging the last one.
    await eventually(countOf(cards(page, '创建文字'))).toBe(2);
    await finished(cards(page, '创建文字').last());
    expect(sent).toHaveLength(2);
  });

  it('says so in English too, and asks to choose where the field is a list of the open documents', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '甲' })]);
    const page = await studio.open(id, 1440, 900, 'en');
    const sent = callsSent(page);
    await page.getByRole('tablist', { name: 'Input' }).getByRole('tab', { name: 'Toolbox' }).click();
    await page.getByRole('button', { name: 'New Text Layer', exact: true }).click();
    const f = form(page, 'New Text Layer');
    await eventually(countOf(f.getByRole('img', { name: 'required' }))).toBe(4);
    await f.getByRole('button', { name: 'Run', exact: true }).click();
    const text = f.locator('#param-create_text_layer-text');
    await eventually(async () => (await fieldOf(text)).error).toBe('Required: fill this in to run the tool');
    expect(sent).toEqual([]);

    await page.getByRole('button', { name: 'Back to the tools' }).click();
    await page.getByRole('button', { name: 'Switch Document', exact: true }).click();
    const doc = page.locator('#param-switch_document-doc_name');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await eventually(async () => (await fieldOf(doc)).error).toBe('Required: choose one to run the tool');
    expect(sent).toEqual([]);
  });

  it('takes several lines of text with Enter and sends the newline, without the model’s note about \\n', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '海报' })]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    const chip = page.getByRole('button', { name: '创建文字', exact: true });
    expect(await chip.getAttribute('title')).toContain('font_size 为字号');
    expect(await chip.getAttribute('title')).not.toContain('\\n');
    await chip.click();
    const f = form(page, '创建文字');
    const text = f.getByLabel('文字内容', { exact: true });
    const field = await fieldOf(text);
    expect(field.tag).toBe('textarea');
    // The model reads “文字内容，\n 表示换行”; the designer reads the label, and no help that only repeats it.
    expect(field.help).toBe(null);
    const about = await textOf(f.locator('.tool-description'))();
    expect(about).not.toContain('\\n');
    expect(about).not.toContain('表示换行');
    expect(about).toContain(
      'x、y 为文本框左上角的像素坐标（原点为画布左上角，x 向右、y 向下）；font_size 为字号',
    );
    expect(await textOf(f)()).not.toContain('\\n');

    await text.click();
    await page.keyboard.type('春季');
    await page.keyboard.press('Enter');
    await page.keyboard.type('新品');
    // Enter broke the line and ran nothing.
    expect((await fieldOf(text)).value).toBe('春季\n新品');
    expect(sent).toEqual([]);
    await f.getByLabel('文本框左上角的 x 坐标', { exact: true }).fill('40');
    await f.getByLabel('文本框左上角的 y 坐标', { exact: true }).fill('60');
    await f.getByLabel('字号', { exact: true }).fill('48');
    await f.getByRole('button', { name: '展开说明' }).click();
    await f.locator('.fields').evaluate((e) => {
      (e as unknown as { scrollTop: number }).scrollTop = 0;
    });
    await snapshot(page, 'tool-form-multiline');
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await finished(cards(page, '创建文字').last());
    const body = sent[0] as { tool_calls: { function: { name: string; arguments: string } }[] };
    expect(body.tool_calls[0]!.function.name).toBe('create_text_layer');
    expect(JSON.parse(body.tool_calls[0]!.function.arguments)).toMatchObject({ text: '春季\n新品' });
    const [info] = await okCalls(studio.url, id, [toolCall('get_active_layer_info')]);
    expect(info).toMatchObject({ layer: { text: { content: '春季\n新品', lines: 2 } } });

    // The same for a tool the studio knows nothing special about: 修改文字's help and description.
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '修改文字', exact: true }).click();
    const edit = form(page, '修改文字');
    const content = edit.getByLabel('新的文字内容', { exact: true });
    expect(await fieldOf(content)).toMatchObject({ tag: 'textarea', help: null });
    expect(await textOf(edit.locator('.tool-description'))()).toBe(
      '修改 name 指定的文字图层的文字内容（并将其设为当前图层），保留字体、字号和颜色。',
    );
  });

  it('marks the required columns of a table (a piece’s layer and type) as its fields are marked', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '套图' })]);
    const page = await studio.open(id);
    await openTool(page, '提取并套图');
    const f = form(page, '提取并套图');
    await f.getByRole('button', { name: '添加一行' }).click();
    // Each row labels its cells by their columns.
    const labels = f.getByRole('group', { name: '第 1 行' }).locator('label');
    await eventually(countOf(labels)).toBe(4);
    const marked = await labels.filter({ has: page.getByRole('img', { name: '必填' }) }).allTextContents();
    expect(marked.map((h) => h.replace('*', ''))).toEqual(['裁片图层名称', '裁片类型']);
    await snapshot(page, 'tool-form-table-required');
  });

  it('labels a switch by what it does (添加全黑蒙版, 锁定), in the form and on the card, without true or false', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '蒙版' }),
      toolCall('create_layer', { name: '茶园' }),
    ]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await openTool(page, '添加蒙版');
    const f = form(page, '添加蒙版');
    const hideAll = f.getByLabel('添加全黑蒙版', { exact: true });
    await eventually(() => hideAll.getAttribute('role')).toBe('switch');
    const field = await fieldOf(hideAll);
    // Its help speaks of the switch, not of the JSON values the model sends.
    expect(field.help).toContain('打开时添加全黑蒙版（隐藏全部）；关闭时按当前选区生成蒙版');
    expect(await textOf(f.locator('.fields'))()).not.toMatch(/\b(true|false)\b/);
    await snapshot(page, 'tool-form-switch-label');
    await hideAll.check();
    await f.getByRole('button', { name: '运行', exact: true }).click();
    const card = cards(page, '添加蒙版').last();
    await finished(card);
    const body = sent[0] as { tool_calls: { function: { arguments: string } }[] };
    expect(JSON.parse(body.tool_calls[0]!.function.arguments)).toEqual({ name: '茶园', hide_all: true });
    // The card names its arguments as the form does.
    expect(await textOf(card.locator('.card-args summary'))()).toBe('参数 图层名称、添加全黑蒙版');

    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '锁定图层', exact: true }).click();
    const lock = form(page, '锁定图层');
    await eventually(() => lock.getByLabel('锁定', { exact: true }).getAttribute('role')).toBe('switch');
    expect(await textOf(lock.locator('.fields'))()).not.toMatch(/\b(true|false)\b/);
  });

  it('takes press inks typed into a colour field, says so in its placeholder, and the card reports the inks', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 200, height: 100, name: '印' }),
      toolCall('convert_to_cmyk'),
      toolCall('create_layer', { name: '黑' }),
    ]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await openTool(page, '填充选区');
    const f = form(page, '填充选区');
    const color = f.getByLabel('填充颜色', { exact: true });
    expect(await color.getAttribute('placeholder')).toBe('#rrggbb / cmyk(0,0,0,100)');
    await color.fill('cmyk(0,0,0,100)');
    // The swatch shows the inks as they print (the document's soft proof), not the black a hex picker would.
    const swatch = f.locator('.color-field input[type="color"]');
    const proof = (await (
      await fetch(`${studio.url}/v1/sessions/${id}/ink?color=cmyk(0,0,0,100)`)
    ).json()) as {
      hex: string;
    };
    expect(proof.hex).toMatch(/^#[0-9a-f]{6}$/);
    expect(proof.hex).not.toBe('#000000');
    await eventually(() => swatch.inputValue()).toBe(proof.hex);
    expect(await swatch.getAttribute('class')).toBeNull();
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(countOf(cards(page, '填充选区'))).toBe(1);
    await finished(cards(page, '填充选区').last());
    expect(sent).toHaveLength(1);
    const [info] = await okCalls(studio.url, id, [toolCall('get_pixel_color', { x: 50, y: 50 })]);
    expect(JSON.stringify(info)).toMatch(/"k":100/);
    // What the swatch showed is what was painted.
    expect(info!.hex).toBe(proof.hex);
    await snapshot(page, 'tool-form-inks');
    // A value that is not inks is refused by the proof, and the swatch shows none.
    const refused = await fetch(`${studio.url}/v1/sessions/${id}/ink?color=cmyk(0,0,0,101)`);
    expect(refused.status).toBe(400);
    await color.fill('cmyk(0,0');
    await eventually(() => swatch.getAttribute('class')).toBe('no-swatch');
  });

  it('sets a text layer’s tracking, leading and first-line indent from the 修改行距字距 form', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 200, name: '字距' }),
      toolCall('create_text_layer', { text: '春季新品\n限时上新', x: 20, y: 20, font_size: 40 }),
    ]);
    const page = await studio.open(id);
    const sent = callsSent(page);
    await openTool(page, '修改行距字距');
    const f = form(page, '修改行距字距');
    await f.getByLabel('文字图层名称', { exact: true }).fill('春季新品');
    await f.getByLabel('字距', { exact: true }).fill('200');
    await f.getByLabel('行距', { exact: true }).fill('64');
    await f.getByLabel('首行缩进', { exact: true }).fill('40');
    await f.getByRole('button', { name: '运行', exact: true }).click();
    await eventually(countOf(cards(page, '修改行距字距'))).toBe(1);
    await finished(cards(page, '修改行距字距').last());
    expect(sent).toEqual([
      {
        tool_calls: [
          expect.objectContaining({
            function: {
              name: 'set_text_spacing',
              arguments: expect.any(String),
            },
          }),
        ],
      },
    ]);
    const sentCall = (sent[0] as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0]!;
    expect(JSON.parse(sentCall.function.arguments)).toEqual({
      name: '春季新品',
      tracking: 200,
      leading: 64,
      indent_first: 40,
    });
    const [info] = await okCalls(studio.url, id, [toolCall('get_active_layer_info')]);
    expect(JSON.stringify(info)).toMatch(/"line_height":64,"tracking":200/);
    await snapshot(page, 'tool-form-text-spacing');
  });
});
