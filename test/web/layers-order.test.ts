/**
 * Restacking layers in the layers pane as in Photoshop: a row dragged onto the upper or lower half of another
 * lands above or below it (into or out of a group), onto a group's middle into the group; a press without a move
 * is still a click, Esc cancels, a drop where the layer already is sends nothing; Ctrl+] and Ctrl+[ move the
 * current layer one place, with Shift to the top or bottom. Each move is one arrange_layer call and one history step;
 * several selected rows dragged together are one arrange_layers call.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { eventually, snapshot } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('layers-order');

const rowOf = (page: Page, name: string) =>
  page
    .locator('.layer-row')
    .filter({ has: page.locator('.layer-title', { hasText: new RegExp(`^${name}$`) }) });

/** The rows as the pane shows them, top first, indented by their depth: '  g1' is inside a group. */
async function rows(page: Page): Promise<string[]> {
  return page.locator('.layer-row').evaluateAll((lis) =>
    lis.map((li) => {
      const depth = Math.round(
        (Number.parseFloat((li as unknown as { style: { paddingLeft: string } }).style.paddingLeft) - 4) / 16,
      );
      return `${'  '.repeat(depth)}${li.querySelector('.layer-title')?.textContent ?? ''}`;
    }),
  );
}

/** Presses on `from`'s name, moves in steps to `fraction` of `to`'s height, and releases (or not). */
async function drag(page: Page, from: string, to: string, fraction: number, release = true): Promise<void> {
  const a = (await rowOf(page, from).locator('.layer-title').boundingBox())!;
  const b = (await rowOf(page, to).boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2, b.y + b.height * fraction, { steps: 8 });
  if (release) await page.mouse.up();
}

/** A drag whose drop line (or frame) shows on `to` before the release; the pane is photographed at that moment. */
async function dropShowing(
  page: Page,
  from: string,
  to: string,
  fraction: number,
  drop: string,
  shot: string,
) {
  await drag(page, from, to, fraction, false);
  await eventually(() => rowOf(page, to).getAttribute('class')).toContain(`drop-${drop}`);
  expect(await rowOf(page, from).getAttribute('class')).toContain('dragged');
  await snapshot(page, shot);
  await page.mouse.up();
}

async function historySteps(id: string): Promise<string[]> {
  const res = await fetch(`${studio.url}/v1/sessions/${id}/state`);
  const state = (await res.json()) as { active: { history: { labels: string[]; index: number } } };
  return state.active.history.labels.slice(0, state.active.history.index + 1);
}

describe('restacking layers in the layers pane', () => {
  it('drags a row above, below and into a group; a click still selects; Esc and a drop in place send nothing', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '排列' }),
      ...['A', 'B', 'C', 'g1', 'g2'].map((name) => toolCall('create_layer', { name })),
      toolCall('create_layer_group', { name: 'G' }),
      toolCall('select_layers', { names: ['g1'] }),
      toolCall('move_layer_to_group', { group_name: 'G' }),
      toolCall('select_layers', { names: ['g2'] }),
      toolCall('move_layer_to_group', { group_name: 'G' }),
    ]);
    const page = await studio.open(id, 1280, 900);
    try {
      await eventually(() => rows(page)).toEqual(['G', '  g2', '  g1', 'C', 'B', 'A', '背景']);
      const steps = (await historySteps(id)).length;

      // A, onto C's upper half: above C.
      await dropShowing(page, 'A', 'C', 0.3, 'above', 'layers-drag-above');
      await eventually(() => rows(page)).toEqual(['G', '  g2', '  g1', 'A', 'C', 'B', '背景']);

      // B, onto the group's middle: into it, at its top.
      await dropShowing(page, 'B', 'G', 0.5, 'inside', 'layers-drag-inside');
      await eventually(() => rows(page)).toEqual(['G', '  B', '  g2', '  g1', 'A', 'C', '背景']);

      // g1, onto the lower half of C: out of the group, below C.
      await dropShowing(page, 'g1', 'C', 0.8, 'below', 'layers-drag-below');
      await eventually(() => rows(page)).toEqual(['G', '  B', '  g2', 'A', 'C', 'g1', '背景']);
      // Onto the lower half of the group's last layer: into the group at its bottom, the line indented.
      await dropShowing(page, 'C', 'g2', 0.8, 'below', 'layers-drag-below-in-group');
      await eventually(() => rows(page)).toEqual(['G', '  B', '  g2', '  C', 'A', 'g1', '背景']);
      // The background's lower half is just above it: nothing goes below the background.
      await drag(page, 'A', '背景', 0.9);
      const final = ['G', '  B', '  g2', '  C', 'g1', 'A', '背景'];
      await eventually(() => rows(page)).toEqual(final);
      expect((await historySteps(id)).slice(steps)).toEqual(Array(5).fill('排列图层'));

      // A drop where the layer already is, Esc mid-drag and the background itself: nothing is sent.
      await drag(page, 'g1', 'A', 0.2);
      await drag(page, 'C', 'A', 0.6, false);
      await eventually(() => rowOf(page, 'A').getAttribute('class')).toContain('drop-below');
      await page.keyboard.press('Escape');
      await eventually(() => rowOf(page, 'A').getAttribute('class')).not.toContain('drop-');
      await page.mouse.up();
      await drag(page, '背景', 'G', 0.5);
      await page.waitForTimeout(400);
      expect(await rows(page)).toEqual(final);
      expect((await historySteps(id)).length).toBe(steps + 5);

      // A press without a move is a click: it selects the layer.
      await page.getByRole('button', { name: 'C', exact: true }).click();
      await eventually(() =>
        page.getByRole('button', { name: 'C', exact: true }).getAttribute('aria-pressed'),
      ).toBe('true');
      const [structure] = await okCalls(studio.url, id, [toolCall('get_layer_structure')]);
      expect(JSON.stringify(structure)).toMatch(/"name":"G".*"name":"B"/);
    } catch (err) {
      await snapshot(page, 'failed-layers-drag');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('moves the current layer with Ctrl+] and Ctrl+[, to the top or bottom with Shift, as Photoshop', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '快捷键排列' }),
      ...['A', 'B', 'C', 'D'].map((name) => toolCall('create_layer', { name })),
      toolCall('select_layers', { names: ['B'] }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => rows(page)).toEqual(['D', 'C', 'B', 'A', '背景']);
      // The canvas has the keys, as after a click on it.
      await page.locator('.canvas-viewport[tabindex]').focus();
      await page.keyboard.press('Control+BracketRight');
      await eventually(() => rows(page)).toEqual(['D', 'B', 'C', 'A', '背景']);
      await page.keyboard.press('Control+Shift+BracketRight');
      await eventually(() => rows(page)).toEqual(['B', 'D', 'C', 'A', '背景']);
      await page.keyboard.press('Control+Shift+BracketLeft');
      await eventually(() => rows(page)).toEqual(['D', 'C', 'A', 'B', '背景']);
      await page.keyboard.press('Control+BracketRight');
      await eventually(() => rows(page)).toEqual(['D', 'C', 'B', 'A', '背景']);
      await page.keyboard.press('Control+BracketLeft');
      await eventually(() => rows(page)).toEqual(['D', 'C', 'A', 'B', '背景']);
      // In a text field the keys are the field's.
      const search = page.getByRole('searchbox', { name: '搜索工具' });
      await search.fill('图层');
      await search.press('Control+BracketRight');
      await page.waitForTimeout(300);
      expect(await rows(page)).toEqual(['D', 'C', 'A', 'B', '背景']);
    } catch (err) {
      await snapshot(page, 'failed-layers-drag-keys');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});

describe('selecting several layers in the layers pane', () => {
  it('adds or takes out a layer with Ctrl, selects a range with Shift, as Photoshop', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '多选' }),
      ...['A', 'B', 'C', 'D'].map((name) => toolCall('create_layer', { name })),
    ]);
    const page = await studio.open(id);
    const selected = () => page.locator('.layer-row.selected .layer-title').allTextContents();
    const current = async () => {
      const state = (await (await fetch(`${studio.url}/v1/sessions/${id}/state`)).json()) as {
        active: { active_layer_id: number; layers: { id: number; name: string }[] };
      };
      return state.active.layers.find((l) => l.id === state.active.active_layer_id)?.name;
    };
    const name = (n: string) => page.getByRole('button', { name: n, exact: true });
    try {
      await eventually(() => rows(page)).toEqual(['D', 'C', 'B', 'A', '背景']);
      await name('C').click();
      await eventually(selected).toEqual(['C']);
      await name('A').click({ modifiers: ['Shift'] });
      await eventually(selected).toEqual(['C', 'B', 'A']);
      expect(await current()).toBe('C');
      // A Shift-click reaches from the same layer again: the range shrinks.
      await name('B').click({ modifiers: ['Shift'] });
      await eventually(selected).toEqual(['C', 'B']);
      await name('D').click({ modifiers: ['Control'] });
      await eventually(selected).toEqual(['D', 'C', 'B']);
      await name('C').click({ modifiers: ['Control'] });
      await eventually(selected).toEqual(['D', 'B']);
      // The last one selected is not taken out: something stays selected, as the tools need.
      await name('B').click({ modifiers: ['Control'] });
      await eventually(selected).toEqual(['D']);
      await name('D').click({ modifiers: ['Control'] });
      await page.waitForTimeout(300);
      expect(await selected()).toEqual(['D']);
      // A plain click selects that layer alone.
      await name('A').click({ modifiers: ['Shift'] });
      await eventually(selected).toEqual(['D', 'C', 'B', 'A']);
      await name('B').click();
      await eventually(selected).toEqual(['B']);
    } catch (err) {
      await snapshot(page, 'failed-layers-multiselect');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('drags several selected rows as one block, in their order, one history step; never onto one of themselves', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '成组拖动' }),
      ...['A', 'B', 'C', 'D'].map((name) => toolCall('create_layer', { name })),
      toolCall('select_layers', { names: ['A', 'C'] }),
    ]);
    const page = await studio.open(id);
    try {
      await eventually(() => rows(page)).toEqual(['D', 'C', 'B', 'A', '背景']);
      await eventually(() => page.locator('.layer-row.selected').count()).toBe(2);
      const steps = (await historySteps(id)).length;
      // Onto one of the selected rows: no drop line, nothing sent.
      await drag(page, 'C', 'A', 0.25, false);
      await page.waitForTimeout(200);
      expect(await rowOf(page, 'A').getAttribute('class')).not.toContain('drop-');
      expect(await rowOf(page, 'A').getAttribute('class')).toContain('dragged');
      await page.mouse.up();
      await page.waitForTimeout(300);
      expect((await historySteps(id)).length).toBe(steps);

      await drag(page, 'C', 'D', 0.25, false);
      await eventually(() => rowOf(page, 'D').getAttribute('class')).toContain('drop-above');
      expect(await rowOf(page, 'A').getAttribute('class')).toContain('dragged');
      await snapshot(page, 'layers-drag-block');
      await page.mouse.up();
      await eventually(() => rows(page)).toEqual(['C', 'A', 'D', 'B', '背景']);
      expect((await historySteps(id)).slice(steps)).toEqual(['排列多个图层']);
    } catch (err) {
      await snapshot(page, 'failed-layers-block');
      throw err;
    } finally {
      await page.context().close();
    }
  });

  it('keeps scrolling a long list while a dragged row is held at its end, and drops where the pointer rests', async () => {
    const id = await createSession(studio.url);
    const names = Array.from({ length: 40 }, (_, i) => `层${i + 1}`);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 300, height: 200, name: '长列表' }),
      ...names.map((name) => toolCall('create_layer', { name })),
    ]);
    const page = await studio.open(id, 1280, 700);
    try {
      await eventually(async () => (await rows(page)).length).toBe(41);
      const list = page.locator('.layer-list');
      const scrollTop = () => list.evaluate((el) => (el as unknown as { scrollTop: number }).scrollTop);
      expect(await scrollTop()).toBe(0);
      const box = (await list.boundingBox())!;
      const a = (await rowOf(page, '层40').locator('.layer-title').boundingBox())!;
      await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
      await page.mouse.down();
      // Into the band at the list's lower end, then held still: the list scrolls on by itself to its end.
      await page.mouse.move(a.x + a.width / 2, box.y + box.height - 6, { steps: 10 });
      await eventually(async () => {
        const el = await list.evaluate((l) => {
          const e = l as unknown as { scrollTop: number; scrollHeight: number; clientHeight: number };
          return e.scrollHeight - e.clientHeight - e.scrollTop;
        });
        return el <= 1;
      }).toBe(true);
      // The drop line follows the rows that came under the pointer: one of the last, near the background.
      await eventually(() => page.locator('.layer-row[class*="drop-"]').count()).toBe(1);
      const line = page.locator('.layer-row[class*="drop-"]');
      const target = (await line.locator('.layer-title').textContent())!;
      const above = (await line.getAttribute('class'))!.includes('drop-above');
      expect(['层1', '层2', '层3', '背景']).toContain(target);
      await page.mouse.up();
      const rest = [...names.slice(0, 39).reverse(), '背景'];
      const at = rest.indexOf(target) + (above ? 0 : 1);
      await eventually(() => rows(page)).toEqual([...rest.slice(0, at), '层40', ...rest.slice(at)]);
      expect((await rows(page))[0]).toBe('层39');
    } catch (err) {
      await snapshot(page, 'failed-layers-order-scroll');
      throw err;
    } finally {
      await page.context().close();
    }
  });
});
