import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, pasteImage, snapshot, textOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('shortcuts');

describe('undo by the keyboard', () => {
  it('undoes an opacity or blend change made in the layers pane with Ctrl+Z, focus still on the control', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '快捷键' }),
      toolCall('create_layer', { name: '色块' }),
    ]);
    const page = await studio.open(id);
    try {
      const opacity = page.getByRole('slider', { name: '不透明度' });
      const shown = page.locator('output[for="layer-opacity"]');
      await eventually(textOf(shown)).toBe('100%');
      // The keyboard moves the slider (each key a change): focus stays on it.
      await opacity.focus();
      await page.keyboard.press('PageDown');
      await eventually(textOf(shown)).not.toBe('100%');
      // The change has landed (the row shows the new opacity), the slider still has the focus.
      const changed = (await shown.textContent())!;
      await eventually(textOf(page.getByRole('button', { name: '色块', exact: true }))).toContain(changed);
      expect(await opacity.evaluate((el) => el.matches(':focus'))).toBe(true);
      await page.keyboard.press('Control+z');
      await eventually(textOf(shown)).toBe('100%');
      // The blend mode, chosen with the keyboard, then undone the same way.
      const blend = page.getByRole('combobox', { name: '混合模式', exact: true });
      await blend.selectOption({ label: '正片叠底' });
      await eventually(() => blend.inputValue()).toBe('multiply');
      await blend.focus();
      await page.keyboard.press('Control+z');
      await eventually(() => blend.inputValue()).toBe('normal');
      // In a text field, Ctrl+Z is the field's: nothing is undone in the document.
      await page.getByRole('tab', { name: '历史记录' }).click();
      const current = page.getByRole('list', { name: '历史步骤' }).locator('[aria-current="step"]');
      const before = await current.textContent();
      const search = page.getByRole('searchbox', { name: '搜索工具' });
      await search.fill('文字');
      await search.press('Control+z');
      await page.getByRole('tab', { name: '图层' }).click();
      await page.getByRole('tab', { name: '历史记录' }).click();
      expect(await current.textContent()).toBe(before);
    } catch (err) {
      await snapshot(page, 'failed-shortcuts');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('sends Ctrl+Z pressed while a nudge is on its way after it: the nudge is what is undone', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '顺序' }),
      toolCall('create_layer', { name: '方块' }),
      toolCall('select_rect', { left: 50, top: 50, right: 150, bottom: 150 }),
      toolCall('fill_selection', { color: '#1e40af' }),
      toolCall('deselect'),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      const history = async () => {
        const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
          active: { history: { labels: string[]; index: number } };
        };
        return state.active.history;
      };
      const before = await history();
      // The nudge's request is held back for a moment, as on a slow network; Ctrl+Z is pressed meanwhile.
      let held = false;
      await page.route('**/tool-calls?stream=1', async (route) => {
        if (!held) {
          held = true;
          await new Promise((r) => setTimeout(r, 600));
        }
        await route.continue();
      });
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Shift+ArrowRight');
      await page.keyboard.press('Control+z');
      // Nudged, then undone: the nudge is the step after the current one (redoable), the fill untouched.
      await eventually(async () => (await history()).labels.length).toBe(before.labels.length + 1);
      await eventually(async () => (await history()).index).toBe(before.index);
      const after = await history();
      expect(after.labels.at(-1)).toBe('移动图层');
      expect(after.labels.slice(0, -1)).toEqual(before.labels);
    } catch (err) {
      await snapshot(page, 'failed-shortcuts-order');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('saves with Ctrl+S, opens Save As with Ctrl+Shift+S and Export As with Ctrl+Alt+Shift+W, anywhere in the page, as Photoshop', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '存盘' }),
      toolCall('create_layer', { name: '色块' }),
    ]);
    const page = await studio.open(id);
    try {
      const tab = page.locator('.doc-tab', { hasText: '存盘' });
      await eventually(() => tab.locator('.unsaved').count()).toBe(1);
      // Typing in a text field: Ctrl+S still saves the document (the browser's "save page" is not opened).
      await page.getByRole('searchbox', { name: '搜索工具' }).click();
      await page.keyboard.press('Control+s');
      await eventually(() => tab.locator('.unsaved').count()).toBe(0);
      const files = async () => {
        const res = await fetch(`${studio.url}/v1/sessions/${id}/files`);
        return ((await res.json()) as { files: { path: string }[] }).files.map((f) => f.path);
      };
      expect(await files()).toContain('存盘.psd');
      await page.keyboard.press('Control+Shift+s');
      await eventually(() => page.getByRole('form', { name: '另存为' }).count()).toBe(1);
      // Proposing the document's file, as Photoshop's Save As proposes its name.
      expect(await page.getByLabel('保存路径', { exact: true }).inputValue()).toBe('存盘.psd');
      // Pressed again on another document, the form open: it opens afresh, proposing that document's file.
      await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '第二' })]);
      await eventually(() => page.locator('.doc-tab.active').textContent()).toContain('第二');
      await page.keyboard.press('Control+Shift+s');
      await eventually(() => page.getByLabel('保存路径', { exact: true }).inputValue()).toBe('第二.psd');
      await snapshot(page, 'shortcuts-save-as');
      // Ctrl+Alt+Shift+W: Export As (导出图像), proposing the document's name as a PNG, as Photoshop's starts on.
      await page.keyboard.press('Control+Alt+Shift+w');
      await eventually(() => page.getByRole('form', { name: '导出图像' }).count()).toBe(1);
      const exportPath = page.getByLabel('导出路径', { exact: true });
      expect(await exportPath.inputValue()).toBe('第二.png');
      await snapshot(page, 'shortcuts-export-as');
      await exportPath.fill('out/第二.pdf');
      await page.getByRole('form', { name: '导出图像' }).getByRole('button', { name: '运行' }).click();
      await eventually(files).toContain('out/第二.pdf');
    } catch (err) {
      await snapshot(page, 'failed-shortcuts-save');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('duplicates (Ctrl+J), merges (Ctrl+E) and groups (Ctrl+G) the selected layers, selects all (Ctrl+A) and deselects (Ctrl+D), as Photoshop', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '图层键' }),
      toolCall('create_layer', { name: 'A' }),
      toolCall('select_rect', { left: 10, top: 10, right: 90, bottom: 90 }),
      toolCall('fill_selection', { color: '#c62828' }),
      toolCall('create_layer', { name: 'B' }),
      toolCall('select_rect', { left: 150, top: 10, right: 250, bottom: 90 }),
      toolCall('fill_selection', { color: '#1e40af' }),
      toolCall('deselect'),
    ]);
    const page = await studio.open(id);
    try {
      const state = async () =>
        (
          (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
            active: {
              layers: { name: string; children?: { name: string }[] }[];
              history: { labels: string[] };
            };
          }
        ).active;
      const names = async () =>
        (await state()).layers.map((l) =>
          l.children ? `${l.name}[${l.children.map((c) => c.name)}]` : l.name,
        );
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(1);
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Control+j');
      await eventually(names).toEqual(['B 拷贝', 'B', 'A', '背景']);
      await page.keyboard.press('Control+e');
      await eventually(names).toEqual(['B', 'A', '背景']);
      expect((await state()).history.labels.slice(-2)).toEqual(['复制图层', '合并图层']);
      await okCalls(studio.url, id, [toolCall('select_layers', { names: ['A', 'B'] })]);
      await eventually(() => page.locator('.artboard .layer-outline').count()).toBe(2);
      await page.keyboard.press('Control+g');
      await eventually(names).toEqual(['组 1[B,A]', '背景']);
      expect((await state()).history.labels.at(-1)).toBe('编组图层');
      // Ctrl+A selects the whole canvas, Ctrl+D deselects (the page's text is not selected).
      const selection = async () =>
        (
          (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
            active: { has_selection: boolean };
          }
        ).active.has_selection;
      await page.keyboard.press('Control+a');
      await eventually(selection).toBe(true);
      expect(await page.evaluate('String(window.getSelection())')).toBe('');
      await page.keyboard.press('Control+d');
      await eventually(selection).toBe(false);
      // Ctrl+Shift+I inverts a selection (with none, it does nothing, as Photoshop): everything becomes nothing.
      // (Once the page knows there is no selection: its ants gone.)
      await eventually(() => page.locator('.artboard .selection-ants').count()).toBe(0);
      const steps = (await state()).history.labels.length;
      await page.keyboard.press('Control+Shift+I');
      await page.waitForTimeout(300);
      expect((await state()).history.labels.length).toBe(steps);
      await page.keyboard.press('Control+a');
      await eventually(selection).toBe(true);
      await eventually(() => page.locator('.artboard .selection-ants').count()).toBe(1);
      await page.keyboard.press('Control+Shift+I');
      await eventually(selection).toBe(false);
      expect((await state()).history.labels.at(-1)).toBe('反选');
      await snapshot(page, 'shortcuts-layer-keys');
    } catch (err) {
      await snapshot(page, 'failed-shortcuts-layer-keys');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});

describe('Ctrl+V with no model', () => {
  const paste = pasteImage;
  const layers = async (id: string) =>
    (
      (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
        active: { layers: { name: string }[] } | null;
      }
    ).active?.layers.map((l) => l.name) ?? [];

  it('places an image pasted on the canvas as a new layer, and leaves a text field its own paste', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 200, height: 100, name: '海报' })]);
    const page = await studio.open(id);
    // The message box cannot be reached without a model: the page takes the paste.
    expect(await page.getByRole('tab', { name: '消息' }).isDisabled()).toBe(true);
    await page.locator('.canvas-viewport').click({ position: { x: 20, y: 20 } });
    expect(await paste(page, '.canvas-viewport')).toBe(true);
    await eventually(async () => (await layers(id)).filter((n) => n.startsWith('粘贴-')).length).toBe(1);
    // In the toolbox's search field the paste is the field's: nothing is placed.
    expect(await paste(page, 'input[type="search"], input')).toBe(false);
    await page.waitForTimeout(300);
    expect((await layers(id)).filter((n) => n.startsWith('粘贴-')).length).toBe(1);
    await snapshot(page, 'shortcuts-paste-canvas');
  });
});
