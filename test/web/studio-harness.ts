/**
 * One file's studio tests: a browser and a test server for the file (with a scripted chat model when asked
 * for), and pages opened on a server session at a window size and in a language, as a designer's reload would
 * find it. Pages close after each test; a failed test's page is kept as a screenshot (`failed-<prefix>-<test>`).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { modelConfigFrom } from '../../src/agent/config.js';
import { startTestServer, type TestServer } from '../server/support.js';
import { launchBrowser, requireBuiltStudio, snapshot } from '../support/browser.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';

export interface StudioHarness {
  /** The test server's address (valid once the file's tests run). */
  readonly url: string;
  /** The test server's workspace (its sessions' folders are under `sessions/`). */
  readonly workspace: string;
  /** The scripted model the server chats with (with `{ model: true }` only). */
  readonly model: ScriptedModel;
  /** The studio on session `id`, at `width × height`, in `lang`, on a system set to `scheme`. */
  open(
    id: string,
    width?: number,
    height?: number,
    lang?: 'zh' | 'en',
    scheme?: 'light' | 'dark',
  ): Promise<Page>;
  /**
   * Reloads a page `open` gave, once the reloaded page's event stream answers. A page just opened may still be
   * waiting for its first stream's answer: that one does not count (under load it came after the reload began,
   * and the test went on before the reloaded page listened), so it is waited for first.
   */
  reloadListening(page: Page): Promise<void>;
}

const isEventStream = (r: { url(): string }) => /\/v1\/sessions\/[^/?]+\/events/.test(r.url());

export function studioHarness(prefix: string, options: { model?: boolean } = {}): StudioHarness {
  let browser: Browser;
  let server: TestServer;
  let model: ScriptedModel | undefined;
  const pages: Page[] = [];
  /** The pages whose event stream has answered since they were made. */
  const listened = new WeakSet<Page>();
  beforeAll(async () => {
    requireBuiltStudio();
    browser = await launchBrowser();
    if (options.model) model = await startScriptedModel();
    server = await startTestServer(
      model
        ? {
            model: modelConfigFrom(
              {},
              { ATELIER_MODEL: 'scripted-model', ATELIER_MODEL_BASE_URL: model.url },
            ),
          }
        : {},
    );
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
  });
  afterEach(async ({ task }) => {
    for (const page of pages.splice(0)) {
      if (task.result?.state === 'fail') await snapshot(page, `failed-${prefix}-${task.name.slice(0, 30)}`);
      // A test may have closed it already, to open the next window size.
      await page
        .context()
        .close()
        .catch(() => {});
    }
  });
  return {
    get url() {
      return server.url;
    },
    get workspace() {
      return server.config.workspace;
    },
    get model() {
      if (!model) throw new Error('this studio harness has no model: studioHarness(prefix, { model: true })');
      return model;
    },
    async open(id, width = 1440, height = 900, lang = 'zh', scheme = 'light') {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
      context.setDefaultTimeout(15_000);
      await context.addInitScript(
        ([sid, language]) => {
          const g = globalThis as unknown as {
            sessionStorage: { setItem(k: string, v: string): void };
            localStorage: { setItem(k: string, v: string): void };
          };
          g.sessionStorage.setItem('atelier.session', sid);
          g.localStorage.setItem('atelier.lang', language);
        },
        [id, lang] as const,
      );
      const page = await context.newPage();
      pages.push(page);
      page.on('response', (r) => {
        if (isEventStream(r)) listened.add(page);
      });
      await page.goto(`${server.url}/`);
      return page;
    },
    async reloadListening(page) {
      // Checked and waited for in one turn of the event loop: no answer can come between.
      if (!listened.has(page)) await page.waitForResponse(isEventStream);
      const listening = page.waitForResponse(isEventStream);
      await page.reload();
      await listening;
    },
  };
}
