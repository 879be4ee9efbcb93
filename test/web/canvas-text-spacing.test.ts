/**
 * The type tool's paragraph panel (段落), as Photoshop's character and paragraph panels: for the selected text
 * layer, a field for each setting set_text_spacing takes, labelled from the registry and showing the layer's
 * values; Enter sends the one changed (修改行距字距) and the canvas redraws the paragraphs so spaced; a value out
 * of the setting's range is not sent.
 */
import { describe, expect, it } from 'vitest';
import { activeLayers, createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { callsSent } from './canvas-support.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('canvas-text-spacing');

async function spacingOf(id: string) {
  const text = (await activeLayers(studio.url, id)).find((l) => l.text)!.text!;
  return { indent: text.indent, space: text.space, leading: text.leading };
}

/**
 * A document holding the text `words` (`size` px) with the studio open on it, the type tool chosen and its 段落
 * panel open; style_text_range's calls as the page sends them.
 */
async function withPanel(doc: string, words: string, size: number, y: number) {
  const id = await createSession(studio.url);
  await okCalls(studio.url, id, [
    toolCall('create_document', { width: 700, height: 400, name: doc }),
    toolCall('create_text_layer', { text: words, x: 60, y, font_size: size }),
  ]);
  const page = await studio.open(id, 1280, 800);
  const sent = callsSent(page, 'style_text_range');
  await eventually(() => page.locator('.artboard img').count()).toBe(1);
  await page.locator('.canvas-viewport[tabindex]').focus();
  await page.keyboard.press('t');
  const bar = page.getByRole('group', { name: '文字选项' });
  await bar.getByRole('button', { name: '段落' }).click();
  return { id, page, sent, bar, row: bar.getByRole('group', { name: '字符样式' }) };
}

describe('the paragraph panel of the type tool', () => {
  it('shows the selected text layer’s spacing and changes it, one setting at a time', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 600, height: 400, name: '段落' }),
      toolCall('create_paragraph_text', {
        text: '春季新品上市，面料柔软透气。\n限时八折，全场包邮。\n欢迎选购。',
        x: 60,
        y: 60,
        width: 480,
        height: 300,
        font_size: 28,
      }),
      toolCall('set_text_spacing', { name: '春季新品上市，面料柔软透气。', indent_first: 56 }),
    ]);
    const page = await studio.open(id, 1280, 800);
    const sent = callsSent(page, 'set_text_spacing');
    await eventually(() => page.locator('.artboard img').count()).toBe(1);
    await page.locator('.canvas-viewport[tabindex]').focus();
    await page.keyboard.press('t');
    const bar = page.getByRole('group', { name: '文字选项' });
    await bar.getByRole('button', { name: '段落' }).click();
    const panel = bar.getByRole('group', { name: '段落' });
    // Its fields are the registry's settings, each showing the layer's value.
    await expect(panel.getByLabel('首行缩进').inputValue()).resolves.toBe('56');
    await expect(panel.getByLabel('行距').inputValue()).resolves.toBe('0');
    const after = panel.getByLabel('段后间距');
    await expect(after.inputValue()).resolves.toBe('0');
    const before = await page.locator('.artboard img').getAttribute('src');

    await after.fill('24');
    await after.press('Enter');
    await eventually(() => sent.length).toBe(1);
    expect(sent[0]).toEqual({ name: '春季新品上市，面料柔软透气。', space_after: 24 });
    await eventually(async () => (await spacingOf(id)).space).toEqual({ before: 0, after: 24 });
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(before);
    await eventually(() => after.inputValue()).toBe('24');

    // Out of range: not sent, the field back to the layer's value.
    const first = panel.getByLabel('首行缩进');
    await first.fill('5000');
    await first.press('Enter');
    await eventually(() => first.inputValue()).toBe('56');
    // A field left (not Enter) sends it too; once.
    const leading = panel.getByLabel('行距');
    const spaced = await page.locator('.artboard img').getAttribute('src');
    await leading.fill('44');
    await page.locator('.canvas-viewport[tabindex]').click({ position: { x: 5, y: 5 } });
    await eventually(async () => (await spacingOf(id)).leading).toBe(44);
    expect(sent).toEqual([
      { name: '春季新品上市，面料柔软透气。', space_after: 24 },
      { name: '春季新品上市，面料柔软透气。', leading: 44 },
    ]);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(spaced);
    await snapshot(page, 'canvas-text-spacing');
  });

  it('sets and clears the faux styles of every character from the panel’s buttons', async () => {
    const { id, page, sent, row: faux } = await withPanel('仿粗体', '春季新品', 80, 60);
    // Labelled from the registry's switches and values, in the order of Photoshop's character panel, none pressed.
    await expect(faux.getByRole('button').allTextContents()).resolves.toEqual([
      '仿粗体',
      '仿斜体',
      '全部大写',
      '小型大写',
      '上标',
      '下标',
      '下划线',
      '删除线',
    ]);
    const bold = faux.getByRole('button', { name: '仿粗体' });
    await expect(bold.getAttribute('aria-pressed')).resolves.toBe('false');
    const before = await page.locator('.artboard img').getAttribute('src');
    await bold.click();
    await eventually(() => bold.getAttribute('aria-pressed')).toBe('true');
    await faux.getByRole('button', { name: '下划线' }).click();
    await eventually(() => faux.getByRole('button', { name: '下划线' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(sent).toEqual([
      { name: '春季新品', text: '春季新品', occurrence: 1, faux_bold: true },
      { name: '春季新品', text: '春季新品', occurrence: 1, underline: true },
    ]);
    const text = (await activeLayers(studio.url, id)).find((l) => l.text)!.text!;
    expect(text.faux).toEqual(['faux_bold', 'underline']);
    await eventually(() => page.locator('.artboard img').getAttribute('src')).not.toBe(before);
    await snapshot(page, 'canvas-text-faux');
    // Pressed again: cleared.
    await bold.click();
    await eventually(() => bold.getAttribute('aria-pressed')).toBe('false');
    expect(sent.at(-1)).toEqual({ name: '春季新品', text: '春季新品', occurrence: 1, faux_bold: false });
  });

  it('sets case, position, scales and baseline shift of every character from the character panel', async () => {
    const { id, page, sent, bar, row } = await withPanel('字符', 'New 新品', 90, 120);
    const caps = row.getByRole('button', { name: '全部大写' });
    const small = row.getByRole('button', { name: '小型大写' });
    await caps.click();
    await eventually(() => caps.getAttribute('aria-pressed')).toBe('true');
    // The case buttons are one setting: small caps takes all caps' place.
    await small.click();
    await eventually(() => small.getAttribute('aria-pressed')).toBe('true');
    await expect(caps.getAttribute('aria-pressed')).resolves.toBe('false');
    const panel = bar.getByRole('group', { name: '段落' });
    const wide = panel.getByLabel('水平缩放');
    await expect(wide.inputValue()).resolves.toBe('100');
    await wide.fill('130');
    await wide.press('Enter');
    const shift = panel.getByLabel('基线偏移');
    await shift.fill('-10');
    await shift.press('Enter');
    const tsume = panel.getByLabel('比例间距');
    await expect(tsume.inputValue()).resolves.toBe('0');
    await tsume.fill('50');
    await tsume.press('Enter');
    const all = { name: 'New 新品', text: 'New 新品', occurrence: 1 };
    await eventually(() => sent.length).toBe(5);
    expect(sent).toEqual([
      { ...all, caps: 'all_caps' },
      { ...all, caps: 'small_caps' },
      { ...all, horizontal_scale: 130 },
      { ...all, baseline_shift: -10 },
      { ...all, tsume: 50 },
    ]);
    const text = (await activeLayers(studio.url, id)).find((l) => l.text)!.text!;
    expect(text.character).toEqual({
      baseline_shift: -10,
      horizontal_scale: 130,
      caps: 'small_caps',
      tsume: 50,
    });
    await eventually(() => wide.inputValue()).toBe('130');
    // Characters set differently show a blank field, as Photoshop's panel does.
    await okCalls(studio.url, id, [
      toolCall('style_text_range', { name: 'New 新品', text: '新品', horizontal_scale: 80 }),
    ]);
    await eventually(() => wide.inputValue()).toBe('');
    await snapshot(page, 'canvas-text-character');
  });
});
