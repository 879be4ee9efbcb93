/**
 * The garment flow as a designer without a model runs it in the studio: a cut-piece PSD and a garment photo
 * uploaded through the files pane, then 识别裁片部位 and 生成花样预览 run from the toolbox's 服装套图 group.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { loadFixtures, marker, openMarker } from '../garment/freesewing-fixtures.js';
import { eventually, finished, lastCardOf, textOf, uploadWith } from '../support/browser.js';
import { newSession, ok, tempDir } from '../support/session.js';

export const EXAMPLES = path.resolve('examples/garment');

/**
 * A tailored jacket's marker with meaningless layer names, saved as a PSD: 26 pieces, several in doubt, some with
 * two alternatives. Its path.
 */
export async function blazerPsd(prefix: string): Promise<string> {
  const fixtures = loadFixtures();
  const blazer = newSession(tempDir(prefix));
  const jacket = fixtures.garments.find((g) => g.id === 'blazer-M')!;
  await openMarker(blazer, marker(jacket, 'none', 0.5, fixtures.seamAllowanceMm), 'blazer');
  await ok(blazer, 'save_document_as', { path: 'blazer.psd' });
  return path.join(blazer.workspace.root, 'blazer.psd');
}

const garmentTools = (page: Page) => page.getByRole('region', { name: '服装套图' });

/** Uploads `psd` and the example motif photo, then runs 识别裁片部位 from the toolbox (its card may not be done). */
export async function identifyFromToolbox(page: Page, psd: string): Promise<void> {
  await uploadWith(page, '上传文档', psd);
  await finished(lastCardOf(page, 'open_document'));
  await uploadWith(page, '上传服装照片', path.join(EXAMPLES, 'photo-motif.jpg'));
  await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain('photo-motif.jpg');
  await garmentTools(page).getByRole('button', { name: '识别裁片部位', exact: true }).click();
  await page.getByRole('button', { name: '运行' }).click();
}

/**
 * Once identified, back to the tools (the form's ‹, shown whether or not pieces in doubt folded the toolbox) and
 * 生成花样预览 run; resolves when its card is done.
 */
export async function previewFromToolbox(page: Page): Promise<void> {
  await finished(lastCardOf(page, 'identify_pieces'));
  await page.getByRole('button', { name: '返回工具列表' }).click();
  await garmentTools(page).getByRole('button', { name: '生成花样预览', exact: true }).click();
  await page.getByRole('button', { name: '运行' }).click();
  await finished(lastCardOf(page, 'generate_garment_preview'));
}
