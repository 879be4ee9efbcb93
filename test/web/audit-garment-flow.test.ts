/**
 * The garment flow as a designer sees it, with the example marker and photos (examples/garment/): identify,
 * preview, 确认套图, apply, verify through a scripted model, and the doubts and the pieces table without one, each
 * step looked at in Chinese and English at a laptop's 1366 × 768 and a phone's 390 × 844
 * (screenshots audit-garment-<step>-<width>-<lang>). At every step nothing in the cards runs past the chat pane,
 * is cut short or wraps a button; the score's measures read on one line each, its suggestions across the card,
 * naming tools in the studio's language; every result picture says it opens full size.
 */
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import sharp from '../../src/engine/sharp.js';
import { allTools } from '../../src/registry/index.js';
import { createSession } from '../server/support.js';
import {
  canvasInk,
  eventually,
  feedOf,
  finished,
  lastCardOf,
  snapshot,
  textOf,
  uploadWith,
  visibleOf,
} from '../support/browser.js';
import type { ScriptedRequest, ScriptStep } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';
import { blazerPsd, EXAMPLES, identifyFromToolbox, previewFromToolbox } from './garment-toolbox.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('audit-garment', { model: true });
const plain = studioHarness('audit-garment-plain');

/**
 * A laptop's and a phone's: a 1440 px desktop gives the chat pane about the width a 1366 px laptop does (looked
 * at once: the same layout), and the audit at three sizes took two minutes of the suite.
 */
const VIEWS = [
  [1366, 768],
  [390, 844],
] as const;
const LANGS = ['zh', 'en'] as const;
type Lang = (typeof LANGS)[number];
const SAVE = allTools.find((t) => t.name === 'save_document')!;

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

/**
 * What a polished chat would not show in the feed's cards, read from the page (a string: the tests' TypeScript has
 * no DOM types): anything past the feed's right edge, text cut short (wider than its box, which hides the rest; the
 * API name beside a card's label gives way by design), a button's words on two lines, a picker narrower than the
 * option it shows, a result picture without its sign that it opens.
 */
const FLAWS = `(() => {
  const feed = document.querySelector('[role="log"]');
  const edge = feed.getBoundingClientRect().right;
  const flaws = [];
  const name = (e) => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : '') + ' "' + (e.textContent || '').trim().slice(0, 40) + '"';
  const measure = document.createElement('canvas').getContext('2d');
  for (const card of feed.querySelectorAll('article.card')) {
    for (const e of card.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || e.closest('dialog')) continue;
      if (r.right > edge + 0.5) flaws.push('past the edge: ' + name(e) + ' by ' + Math.round(r.right - edge) + 'px');
      const s = getComputedStyle(e);
      if (s.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1 && e.tagName !== 'PRE' && e.tagName !== 'SELECT' && !e.matches('.card header code'))
        flaws.push('cut: ' + name(e));
      if (e.tagName === 'BUTTON' && !e.classList.contains('image-button') && !e.classList.contains('piece-thumb')) {
        const line = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.5;
        const inner = r.height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom) - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);
        if (inner > line * 1.5) flaws.push('wrapped: ' + name(e));
      }
      if (e.tagName === 'SELECT' && e.selectedOptions[0]) {
        measure.font = s.fontSize + ' ' + s.fontFamily;
        const need = measure.measureText(e.selectedOptions[0].textContent).width;
        const room = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 16;
        if (need > room + 1) flaws.push('picker cut: ' + name(e) + ' needs ' + Math.round(need) + 'px, has ' + Math.round(room));
      }
      if (e.matches('.image-button')) {
        const img = e.querySelector('img').getBoundingClientRect();
        const cue = e.querySelector('.enlarge-cue');
        const c = cue && cue.getBoundingClientRect();
        if (!c || c.width === 0 || getComputedStyle(cue).visibility === 'hidden' || c.left < img.left || c.right > img.right || c.top < img.top || c.bottom > img.bottom)
          flaws.push('no sign that the picture opens: ' + name(e));
      }
    }
  }
  return [...new Set(flaws)];
})()`;

const flawsOf = (page: Page) => page.evaluate(FLAWS) as Promise<string[]>;

/** The score card's measures and suggestions as laid out: lines per measure name, meters' x, widths. */
const VERIFY_LAYOUT = `(() => {
  const verify = [...document.querySelectorAll('[role="log"] .verify')].pop();
  const box = (e) => e.getBoundingClientRect();
  const lines = (e) => {
    const s = getComputedStyle(e);
    return Math.round(box(e).height / (parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.5));
  };
  const suggestions = verify.querySelector('.suggestions');
  return {
    names: [...verify.querySelectorAll('.measures li span')].map((s) => ({ text: s.textContent, lines: lines(s) })),
    meters: [...verify.querySelectorAll('.measures meter')].map((m) => Math.round(box(m).left)),
    cardWidth: box(verify).width,
    suggestionsWidth: suggestions ? box(suggestions).width : 0,
    suggestions: suggestions ? suggestions.textContent : '',
  };
})()`;

interface VerifyLayout {
  names: { text: string; lines: number }[];
  meters: number[];
  cardWidth: number;
  suggestionsWidth: number;
  suggestions: string;
}

async function expectReadableScore(page: Page, view: string, lang: Lang) {
  const layout = (await page.evaluate(VERIFY_LAYOUT)) as VerifyLayout;
  expect(layout.names.length, view).toBeGreaterThan(3);
  // Each measure's name on one line, its meter lined up with the others.
  expect(layout.names, view).toEqual(layout.names.map((n) => ({ text: n.text, lines: 1 })));
  expect(new Set(layout.meters).size, view).toBe(1);
  // The suggestions are sentences: across the card, not in the column beside the badge.
  expect(layout.suggestionsWidth, view).toBeGreaterThan(layout.cardWidth * 0.85);
  // The tool a suggestion names reads as the studio names it, in its language.
  expect(layout.suggestions, view).toContain(`「${lang === 'en' ? SAVE.labelEn : SAVE.label}」`);
  if (lang === 'en') expect(layout.suggestions, view).not.toContain(`「${SAVE.label}」`);
}

/**
 * Every view of the session at one step: a page per language, opened on the session once and kept, so the cards it
 * shows arrived as a designer watching would see them; each page at each size, the target scrolled into view,
 * looked at and checked. (A page per view and step took 16 page opens, 40 s of the suite; a page opened on the
 * conversation shows the same cards, which the feed's own tests check.)
 */
async function lookAt(
  watchers: Map<Lang, Page>,
  id: string,
  step: string,
  target: (page: Page) => Locator,
  ready: string,
  check: (page: Page, view: string, lang: Lang) => Promise<void> = async () => {},
) {
  for (const lang of LANGS) {
    let page = watchers.get(lang);
    if (!page) {
      page = await studio.open(id, VIEWS[0][0], VIEWS[0][1], lang);
      watchers.set(lang, page);
    }
    await eventually(textOf(feedOf(page))).toContain(ready);
    for (const [width, height] of VIEWS) {
      const view = `${step} ${width} ${lang}`;
      await page.setViewportSize({ width, height });
      await target(page).evaluate((e) =>
        (e as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: 'start' }),
      );
      // The result pictures have loaded (they are fetched with the session's credentials).
      await eventually(() =>
        page.evaluate(`[...document.querySelectorAll('.image-button img')].every((i) => i.complete)`),
      ).toBe(true);
      // Checked first, so that the picture is of the page settled (a canvas brought back into view is redrawn).
      await check(page, view, lang);
      await snapshot(page, `audit-garment-${step}-${width}-${lang}`);
      expect(await flawsOf(page), view).toEqual([]);
      // English's curly apostrophe about as narrow as a straight one (1.14×), not as wide as the Chinese font sets it
      // (2.02×).
      if (lang === 'en') expect(await quoteWidth(page), view).toBeLessThan(1.5);
    }
  }
}

/** How much wider the page sets “’” than “'” in its own font. */
const quoteWidth = (page: Page) =>
  page.evaluate(`(() => {
    const width = (text) => {
      const span = document.createElement('span');
      span.textContent = text.repeat(8);
      document.body.append(span);
      const w = span.getBoundingClientRect().width;
      span.remove();
      return w;
    };
    return width('\u2019') / width("'");
  })()`) as Promise<number>;

/**
 * The same page at every size and in either language (without a model its feed and open table are its own):
 * the target's top and its end scrolled into view, looked at and checked.
 */
async function lookHere(page: Page, step: string, target: (page: Page) => Locator) {
  for (const lang of LANGS) {
    for (const [width, height] of VIEWS) {
      await page.setViewportSize({ width, height });
      for (const block of ['start', 'end']) {
        await target(page).evaluate(
          (e, b) => (e as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: b }),
          block,
        );
        await snapshot(page, `audit-garment-${step}-${width}-${lang}-${block}`);
      }
      expect(await flawsOf(page), `${step} ${width} ${lang}`).toEqual([]);
    }
    await page.getByRole('button', { name: lang === 'zh' ? '切换为英文界面' : 'Switch to Chinese' }).click();
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('the garment flow with a model, as a designer sees it', () => {
  it('identifies, previews, applies and verifies the example marker', { timeout: 400_000 }, async () => {
    const id = await createSession(studio.url);
    const page = await studio.open(id, 1440, 900, 'zh');
    const watchers = new Map<Lang, Page>();
    await uploadWith(page, '上传文档', path.join(EXAMPLES, 'pieces.psd'));
    await finished(lastCardOf(page, 'open_document'));
    // The photo as a web shop serves it: WebP (lossless here, so the analysis is the JPEG's own).
    const webp = path.join(tempDir('audit-webp-'), 'photo-allover.webp');
    await sharp(path.join(EXAMPLES, 'photo-allover.jpg')).webp({ lossless: true }).toFile(webp);
    await uploadWith(page, '上传服装照片', webp);
    const garmentInput = page.locator('input[type=file][aria-label="上传服装照片"]');
    expect(await garmentInput.getAttribute('accept')).toContain('image/webp');
    await eventually(textOf(page.getByRole('complementary', { name: '面板' }))).toContain(
      '服装照片：photo-allover.webp',
    );
    studio.model.push(
      {
        toolCalls: [
          { name: 'identify_pieces', arguments: {} },
          { name: 'generate_garment_preview', arguments: {} },
        ],
      },
      { text: '预览已生成，请确认。' },
    );
    const afterConfirm: ScriptStep[] = [
      (request) => {
        const preview = resultOf(request, 'generate_garment_preview');
        return {
          toolCalls: [
            { name: 'extract_and_apply_all_pieces', arguments: { pieces: preview?.proposed_pieces ?? [] } },
            { name: 'verify_pattern_result', arguments: {} },
          ],
        };
      },
      { text: '套图完成，评分见上方。' },
    ];
    await page.getByRole('textbox', { name: '消息' }).fill('用这张照片给裁片套图');
    await page.getByRole('button', { name: '发送' }).click();
    // The analysis is real work on the example marker: waited for as long as it takes, then the model's words.
    await finished(lastCardOf(page, 'identify_pieces'));
    await finished(lastCardOf(page, 'generate_garment_preview'));
    await eventually(textOf(feedOf(page))).toContain('预览已生成，请确认。');
    await lookAt(watchers, id, '1-identify', (p) => lastCardOf(p, 'identify_pieces'), '预览已生成');
    await lookAt(
      watchers,
      id,
      '2-preview',
      (p) => lastCardOf(p, 'generate_garment_preview'),
      '预览已生成',
      async (p, view) => {
        // Both decisions in view side by side, on one line each.
        const buttons = lastCardOf(p, 'generate_garment_preview').locator('.garment-actions button');
        expect(await buttons.count(), view).toBe(2);
        const [a, b] = [(await buttons.nth(0).boundingBox())!, (await buttons.nth(1).boundingBox())!];
        expect(Math.abs(a.y - b.y), view).toBeLessThan(1);
      },
    );
    // The model service refuses the confirmation: nothing was applied, so the decision is still to be made.
    studio.model.push({ status: 401, error: 'invalid api key' });
    const confirm = lastCardOf(page, 'generate_garment_preview').getByRole('button', { name: '确认套图' });
    await confirm.click();
    await eventually(textOf(feedOf(page).locator('.notice'))).toContain('API 密钥无效');
    await eventually(() => confirm.count()).toBe(1);
    studio.model.push(...afterConfirm);
    await confirm.click();
    await finished(lastCardOf(page, 'extract_and_apply_all_pieces'));
    await finished(lastCardOf(page, 'verify_pattern_result'));
    await eventually(textOf(feedOf(page))).toContain('套图完成');
    await lookAt(
      watchers,
      id,
      '3-apply',
      (p) => lastCardOf(p, 'extract_and_apply_all_pieces'),
      '套图完成',
      async (p) => {
        // The canvas shows the applied print (the grey pieces had no dark in them), in every view.
        await eventually(async () => (await canvasInk(p))?.dark ?? 0).toBeGreaterThan(0.005);
      },
    );
    await lookAt(
      watchers,
      id,
      '4-verify',
      (p) => lastCardOf(p, 'verify_pattern_result'),
      '套图完成',
      expectReadableScore,
    );
    expect(studio.model.remaining).toBe(0);
  });
});

describe('the garment flow without a model, as a designer sees it', () => {
  it('shows the doubts, the pieces table and the preview full size', { timeout: 400_000 }, async () => {
    const psd = await blazerPsd('atelier-audit-blazer-');
    const id = await createSession(plain.url);
    const page = await plain.open(id, 1440, 900, 'zh');
    await identifyFromToolbox(page, psd);
    await previewFromToolbox(page);
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await eventually(textOf(lastCardOf(page, 'identify_pieces').getByRole('note'))).toContain('也可能是');
    await lookHere(page, '5-doubts', (p) => lastCardOf(p, 'identify_pieces').getByRole('note'));
    const preview = lastCardOf(page, 'generate_garment_preview');
    await preview.getByRole('button', { name: '确认套图' }).click();
    await eventually(visibleOf(preview.getByRole('table'))).toBe(true);
    await lookHere(page, '6-table', (p) => lastCardOf(p, 'generate_garment_preview').locator('.pieces'));
    await preview.getByRole('button', { name: '查看大图' }).first().click();
    const large = page.locator('dialog.lightbox[open] img');
    await eventually(visibleOf(large)).toBe(true);
    for (const [width, height] of VIEWS) {
      await page.setViewportSize({ width, height });
      await snapshot(page, `audit-garment-7-large-${width}`);
      // Full size: most of the window's height or width.
      const box = (await large.boundingBox())!;
      expect(Math.max(box.width / width, box.height / height), `${width}`).toBeGreaterThan(0.8);
    }
    await page.keyboard.press('Escape');
    await eventually(visibleOf(large)).toBe(false);
  });
});
