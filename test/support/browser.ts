/**
 * Debian's Chromium driven by playwright-core (playwright's own browser download does not work on these
 * machines), screenshots kept under test-artifacts/studio/ to look at, and a probe of the canvas's pixels.
 *
 * The studio's tests run in Debian's `chromium-headless-shell`: Chromium's own renderer (Blink, V8, Skia, the
 * same build of the same source as `chromium`) without the browser's windows, which is what Playwright runs
 * headless tests in. The full browser's process spent about 1.7 s of CPU per page opened (its windowing and
 * profile machinery), the shell's a tenth of that: the web tests took 107 s on a 2-core machine, 63 s in the
 * shell. The main studio walk-through (studio.test.ts) and the README's pictures still use the full `chromium`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserServer,
  chromium,
  type Download,
  type Locator,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';
import { DEFAULT_STUDIO_ROOT } from '../../src/server/routes/studio.js';

/** The browser the tests use unless they ask for the full one. */
export const CHROMIUM = process.env.ATELIER_CHROMIUM ?? '/usr/bin/chromium-headless-shell';
/** Debian's full Chromium, as a designer's browser runs the studio. */
export const FULL_CHROMIUM = process.env.ATELIER_FULL_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve('test-artifacts/studio');

/** The studio must be built (npm run build) before a browser can load it. */
export function requireBuiltStudio(): void {
  if (!existsSync(path.join(DEFAULT_STUDIO_ROOT, 'index.html'))) {
    throw new Error(`the studio is not built (${DEFAULT_STUDIO_ROOT}): run npm run build`);
  }
}

/** The browsers this process started, by executable. */
const servers = new Map<string, Promise<BrowserServer>>();

/**
 * A browser of its own for the calling test file: a connection to the Chromium (`executable`) this test process
 * started, which the files that run after it in the same process share (Vitest keeps a worker's modules between
 * files). Closing the connection closes the file's contexts and pages, not the Chromium; Playwright ends it with
 * the process. A launch took 1.6–2.6 s of a 2-core machine, in each of some 35 files.
 */
export async function launchBrowser(executable = CHROMIUM): Promise<Browser> {
  if (!existsSync(executable))
    throw new Error(`no browser at ${executable}: bash scripts/install-test-deps.sh installs it`);
  for (let attempt = 0; ; attempt++) {
    let started = servers.get(executable);
    if (!started) {
      started = chromium.launchServer({
        executablePath: executable,
        args: ['--no-sandbox', '--disable-gpu'],
      });
      servers.set(executable, started);
    }
    const running = await started.catch((err: unknown) => {
      if (servers.get(executable) === started) servers.delete(executable);
      throw err;
    });
    try {
      return await chromium.connect(running.wsEndpoint());
    } catch (err) {
      // The Chromium died (a crash, or killed): start another, once.
      if (servers.get(executable) === started) servers.delete(executable);
      await running.kill().catch(() => {});
      if (attempt > 0) throw err;
    }
  }
}

/**
 * Ends the Chromiums this process started, for a script (not a test run, where the process's end does it): a
 * script's process would otherwise wait on the browser server for ever.
 */
export async function stopBrowser(): Promise<void> {
  const started = [...servers.values()];
  servers.clear();
  await Promise.all(started.map(async (s) => (await s.catch(() => null))?.close()));
}

/** A fresh page (its own storage, so its own studio session) at a designer's screen size. */
export async function openPage(
  browser: Browser,
  url: string,
  beforeLoad: (page: Page) => void = () => {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  beforeLoad(page);
  await page.goto(url);
  return page;
}

/** Saves a screenshot once the bundled font has loaded, so the picture shows what a person sees. */
export async function snapshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.evaluate('document.fonts.ready');
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export interface CanvasInk {
  readonly width: number;
  readonly height: number;
  /** Share of pixels that are opaque. */
  readonly opaque: number;
  /** Share of opaque pixels darker than mid-grey (text, shapes on a white page). */
  readonly dark: number;
}

/**
 * In the page (as strings: the tests' TypeScript has no DOM types), the pixels of an <img> `img` as it shows
 * them, drawn on a canvas `c` its size: `d`, RGBA. Returns null before the picture has loaded.
 */
const READ_IMG = `
  if (!img || !img.complete || img.naturalWidth === 0) return null;
  const c = document.createElement('canvas');
  c.width = img.naturalWidth;
  c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;`;

/** What the canvas pane shows right now, read from its image's pixels; null before an image has loaded. */
const CANVAS_INK = `(() => {
  const img = document.querySelector('.artboard img');${READ_IMG}
  let opaque = 0;
  let dark = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 200) continue;
    opaque++;
    if (d[i] + d[i + 1] + d[i + 2] < 384) dark++;
  }
  const total = d.length / 4;
  return { width: c.width, height: c.height, opaque: opaque / total, dark: opaque ? dark / opaque : 0 };
})()`;

/**
 * A digest of the picture an <img> shows (its size and pixels; the page's policy lets it fetch nothing but its
 * own origin, so not its blob's bytes), null while none has loaded: two pictures shown differ when it does.
 */
export function shownPicture(img: Locator): Promise<string | null> {
  // A function built from the shared text: a page function cannot call code defined outside it.
  const digest = new Function(
    'img',
    `${READ_IMG}
  let h = 0;
  for (let k = 0; k < d.length; k++) h = (Math.imul(h, 31) + d[k]) | 0;
  return c.width + '×' + c.height + ':' + h;`,
  ) as (img: unknown) => string | null;
  return img.evaluate(digest);
}

export function canvasInk(page: Page): Promise<CanvasInk | null> {
  return page.evaluate(CANVAS_INK) as Promise<CanvasInk | null>;
}

/** The bundled font's family (Noto Sans SC, from @fontsource/noto-sans-sc). */
export const STUDIO_FONT = 'Noto Sans SC';

/**
 * The page's body font, how many faces (unicode-range slices) of the bundled font have loaded, and the font
 * files the page downloaded with their sizes in bytes.
 */
export function fontState(
  page: Page,
): Promise<{ family: string; loaded: number; files: { name: string; bytes: number }[] }> {
  return page.evaluate(`document.fonts.ready.then(() => ({
    family: getComputedStyle(document.body).fontFamily,
    loaded: [...document.fonts].filter((f) => f.family.includes(${JSON.stringify(STUDIO_FONT)}) && f.status === 'loaded').length,
    files: performance.getEntriesByType('resource')
      .filter((e) => /\\.(woff2?|otf|ttf)$/.test(new URL(e.name).pathname))
      .map((e) => ({ name: new URL(e.name).pathname, bytes: e.encodedBodySize })),
  }))`) as Promise<{ family: string; loaded: number; files: { name: string; bytes: number }[] }>;
}

/**
 * Web-first assertions for vitest (playwright-core has no `expect`): the value is read again until the matcher
 * passes or the time is up, as the page updates after the server answers.
 */
export function eventually<T>(read: () => Promise<T> | T): ReturnType<typeof expect.poll<T>> {
  return expect.poll(read, { timeout: 20_000, interval: 100 });
}

/**
 * How long a tool card may run: real work (a garment analysis, a large PSD) on a machine other tests load too.
 * Not a speed limit: the test's own timeout bounds the wait.
 */
const WORK_MS = 600_000;

/**
 * How long `finished` waits for a new card when the one its locator finds is a card it has already seen finish:
 * a `.last()` read just after the action that makes the next card of that tool, before the page shows it.
 */
const NEW_CARD_MS = 20_000;

/**
 * Waits for a tool card to finish, however long its call works, then expects it done (a failed card fails here,
 * with its text). `eventually`'s 20 s are for the page to show what the server said; a garment analysis took
 * longer than that with more test files running beside it.
 *
 * A card it accepts is marked, so that a later wait on a `.last()` of the same tool waits for the next card (for
 * up to NEW_CARD_MS, after which the marked one is taken again: a test may well wait on one card twice). A failed
 * card is taken only once it has stayed the one `card` finds for NEW_CARD_MS: a test that watched a card of the
 * same tool fail, without this helper, may be waiting on the next one, which the page has not shown yet.
 */
export async function finished(card: Locator): Promise<void> {
  const since = Date.now();
  // Read, judged and marked in one step on one element: `card` is often a `.last()` that moves to a new card of
  // the same tool while the old one is being read.
  const read = () =>
    card
      .evaluate(
        (e, graceOver) => {
          const busy = e.getAttribute('aria-busy') !== 'false';
          const seen = e.hasAttribute('data-test-finished');
          const ok = e.classList.contains('ok');
          const done = !busy && (!seen || graceOver) && (ok || graceOver);
          if (done) e.setAttribute('data-test-finished', '');
          return { done, classes: e.className.split(/\s+/), text: e.textContent ?? '' };
        },
        Date.now() - since >= NEW_CARD_MS,
        { timeout: 1_000 },
      )
      .catch(() => undefined);
  let last: Awaited<ReturnType<typeof read>>;
  await expect
    .poll(
      async () => {
        last = await read();
        return last?.done === true;
      },
      { timeout: WORK_MS, interval: 200 },
    )
    .toBe(true);
  expect(last!.classes, last!.text).toContain('ok');
}

/** Text, attribute and count readers for `eventually`. */
export const textOf = (l: Locator) => () => l.textContent().then((t) => t ?? '');
export const attrOf = (l: Locator, name: string) => () => l.getAttribute(name);
export const countOf = (l: Locator) => () => l.count();
export const visibleOf = (l: Locator) => () => l.isVisible();

/** The studio's chat feed. */
export const feedOf = (page: Page) => page.getByRole('log').first();

/** A tool's last card in the feed, found by its API name (the same in either language). */
export const lastCardOf = (page: Page, tool: string) =>
  feedOf(page)
    .locator('article.card')
    .filter({ has: page.locator('header code', { hasText: new RegExp(`^${tool}$`) }) })
    .last();

/** Uploads `file` with the files pane's button named `button` (上传文档, 上传服装照片). */
export async function uploadWith(page: Page, button: string, file: string): Promise<void> {
  await page.getByRole('tab', { name: '文件' }).click();
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: button }).click(),
  ]);
  await chooser.setFiles(file);
}

/**
 * The context's pages read as hidden when `setHidden` says so (`document.visibilityState`), so that a test can
 * leave a tab in the background past the time it goes on listening.
 */
export async function hideable(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const g = globalThis as unknown as { document: object; atelierHidden?: boolean };
    Object.defineProperty(g.document, 'visibilityState', {
      get: () => (g.atelierHidden ? 'hidden' : 'visible'),
      configurable: true,
    });
  });
}

/** Sends a page of a `hideable` context to the background, or brings it back, as the browser tells it. */
export const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    const g = globalThis as unknown as {
      atelierHidden: boolean;
      document: { dispatchEvent(e: Event): void };
    };
    g.atelierHidden = h;
    g.document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);

/** The feed's entries top to bottom: a message's first words, a card's label (and its MCP tag), a notice. */
export const feedEntries = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('.feed > *')].map((el) =>
    el.tagName === 'ARTICLE'
      ? 'card:' + el.getAttribute('aria-label') + (el.querySelector('.card-source') ? ' MCP' : '')
      : el.classList.contains('bubble')
        ? (el.classList.contains('user') ? 'user:' : 'assistant:') + el.textContent.slice(0, 6)
        : el.className)`) as Promise<string[]>;

/** A download's bytes: the browser is a connection (launchBrowser), where a download has no local path. */
export async function downloadedBytes(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The little of a canvas element `imagePixels` uses in the page (the test code has no DOM types). */
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(img: unknown, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
}

/** Run in the page, so self-contained: an `<img>`'s decoded pixels, or null. */
const readImage = (e: {
  tagName: string;
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
}): { width: number; height: number; data: number[] } | null => {
  if (e.tagName !== 'IMG' || !e.complete || !e.naturalWidth) return null;
  const page = (globalThis as unknown as { document: { createElement(t: 'canvas'): PageCanvas } }).document;
  const c = page.createElement('canvas');
  c.width = e.naturalWidth;
  c.height = e.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(e, 0, 0);
  return { width: c.width, height: c.height, data: Array.from(g.getImageData(0, 0, c.width, c.height).data) };
};

/**
 * The colour (RGB) an `<img>` shows at a point given as fractions of its width and height, once it has loaded;
 * null before. Reads the one pixel in the page instead of sending every pixel over.
 */
export function imageColorAt(img: Locator, fx: number, fy: number): Promise<number[] | null> {
  const read = new Function(
    'img',
    'at',
    `${READ_IMG}
  const i = (Math.min(c.height - 1, Math.floor(at[1] * c.height)) * c.width + Math.min(c.width - 1, Math.floor(at[0] * c.width))) * 4;
  return [d[i], d[i + 1], d[i + 2]];`,
  ) as (img: unknown, at: [number, number]) => number[] | null;
  return img.evaluate(read, [fx, fy] as [number, number], { timeout: 1000 }).catch(() => null);
}

/**
 * An `<img>`'s decoded pixels (RGBA, row by row) as the page has them, once it has loaded; null before it has,
 * when the element is not an image, or when it is not there (yet).
 */
export function imagePixels(img: Locator): Promise<{ width: number; height: number; data: number[] } | null> {
  return img
    .evaluate(readImage as unknown as (e: unknown) => ReturnType<typeof readImage>, undefined, {
      timeout: 1000,
    })
    .catch(() => null);
}

/**
 * Pastes a 40 × 30 red PNG on the element `selector`, as a screenshot comes off the clipboard ("image.png"); true
 * when the page took the paste (prevented the browser's own).
 */
export function pasteImage(page: Page, selector: string): Promise<unknown> {
  return page.evaluate(`(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 40;
    canvas.height = 30;
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#c0392b';
    ctx.fillRect(0, 0, 40, 30);
    const blob = await new Promise((done) => canvas.toBlob(done, 'image/png'));
    const data = new DataTransfer();
    data.items.add(new File([blob], 'image.png', { type: 'image/png' }));
    const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
    document.querySelector(${JSON.stringify(selector)}).dispatchEvent(event);
    return event.defaultPrevented;
  })()`);
}
