/** What the canvas tests share: where a document pixel is on screen, and the selection and history the server has. */
import type { Page } from 'playwright-core';

/** Screen point of document pixel (x, y) of a `w` × `h` document, as the artboard shows it now. */
export async function screenPoint(page: Page, w: number, h: number, x: number, y: number) {
  const box = (await page.locator('.artboard').boundingBox())!;
  return { x: box.x + (x / w) * box.width, y: box.y + (y / h) * box.height };
}

export interface SelectionState {
  bounds: { x: number; y: number; w: number; h: number };
  outline: string;
}

/** The active document's pixel selection and the labels of its history up to the current step. */
export async function selectionState(
  base: string,
  id: string,
): Promise<{ selection: SelectionState | null; labels: string[] }> {
  const s = (await (await fetch(`${base}/v1/sessions/${id}/state`)).json()) as {
    active: { selection: SelectionState | null; history: { labels: string[]; index: number } };
  };
  return {
    selection: s.active.selection,
    labels: s.active.history.labels.slice(0, s.active.history.index + 1),
  };
}

/** The labels of the active document's history up to the current step. */
export async function historyLabels(base: string, id: string): Promise<string[]> {
  return (await selectionState(base, id)).labels;
}

/** The arguments of every call of tool `name` the page sends from now on, in order (the array fills as it goes). */
export function callsSent(page: Page, name: string): Record<string, unknown>[] {
  const sent: Record<string, unknown>[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST' || !r.url().includes('/tool-calls')) return;
    const body = r.postDataJSON() as { tool_calls: { function: { name: string; arguments: string } }[] };
    for (const c of body.tool_calls)
      if (c.function.name === name) sent.push(JSON.parse(c.function.arguments));
  });
  return sent;
}

/** The canvas given the keys and the type tool chosen with T, its button shown pressed. */
export async function chooseTypeTool(page: Page): Promise<void> {
  await page.locator('.canvas-viewport[tabindex]').focus();
  await page.keyboard.press('t');
  const button = page.getByRole('button', { name: '横排文字工具' });
  for (let i = 0; i < 100 && (await button.getAttribute('aria-pressed')) !== 'true'; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if ((await button.getAttribute('aria-pressed')) !== 'true') throw new Error('the type tool was not chosen');
}
