import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledFontPath } from '../../../src/engine/text.js';
import { studioRoutes } from '../../../src/server/routes/studio.js';
import { launchBrowser, snapshot } from '../../support/browser.js';

function builtStudio(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'atelier-studio-'));
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Atelier 工作室</title>');
  writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(path.join(root, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(path.join(root, 'assets', 'noto-sans-sc-4-400-normal-x1.woff2'), Buffer.from('wOF2'));
  writeFileSync(path.join(path.dirname(root), `${path.basename(root)}-outside.txt`), 'TOP SECRET CONTENT');
  return root;
}

describe('the studio’s static files', () => {
  const root = builtStudio();
  const app = studioRoutes({ root });

  it('serves the page at / and at any other page path, never cached stale, with a strict policy', async () => {
    for (const p of ['/', '/documents/海报', '/anything']) {
      const res = await app.request(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
      expect(await res.text()).toContain('Atelier 工作室');
    }
  });

  it('serves hashed assets with their types, cached for a year', async () => {
    const cases = [
      ['/assets/index-abc123.js', 'text/javascript; charset=utf-8'],
      ['/assets/index-abc123.css', 'text/css; charset=utf-8'],
      ['/assets/noto-sans-sc-4-400-normal-x1.woff2', 'font/woff2'],
    ] as const;
    for (const [p, type] of cases) {
      const res = await app.request(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(await (await app.request('/assets/index-abc123.js')).text()).toBe('console.log(1)');
  });

  it('answers 404 for a missing asset and leaves API paths and file names alone', async () => {
    const res = await app.request('/assets/nope.js');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    // Not pages: the app's own routes or its 404 answer them.
    for (const p of ['/v1/unknown', '/mcp', '/favicon.ico'])
      expect((await app.request(p)).status, p).toBe(404);
  });

  it('never serves a file outside its folder', async () => {
    const outside = `${path.basename(root)}-outside.txt`;
    const attempts = [
      `/assets/../../${outside}`,
      `/assets/%2e%2e/%2e%2e/${outside}`,
      `/assets/..%2f..%2f${outside}`,
      '/assets/%2e%2e%5c..%5cetc%5cpasswd',
      '/assets/%00.js',
    ];
    for (const p of attempts) {
      const res = await app.request(p);
      expect(res.status, p).not.toBe(200);
      expect(await res.text()).not.toContain('TOP SECRET');
    }
    // A symbolic link that leads out of the folder is refused too.
    symlinkSync(path.join(path.dirname(root), outside), path.join(root, 'assets', 'link.txt'));
    expect((await app.request('/assets/link.txt')).status).toBe(404);
  });

  it('says how to build the studio when it has not been built', async () => {
    const empty = studioRoutes({ root: mkdtempSync(path.join(tmpdir(), 'atelier-nostudio-')) });
    for (const p of ['/', '/assets/index.js']) {
      const res = await empty.request(p);
      expect(res.status, p).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const page = await res.text();
      expect(page).toMatch(/^<!doctype html>\s*<html lang="zh-CN">\s*<head>\s*<meta charset="utf-8">/);
      expect(page).toContain('<title>Atelier 工作室尚未构建</title>');
      expect(page).toContain('<pre><code>npm run build</code></pre>');
      // Chinese only: no English sentence in what the page says (its markup and styles aside).
      const words = page
        .replace(/<style>[\s\S]*<\/style>/, '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/npm run build(?::web)?|dist\/web|Atelier|HTTP|MCP/g, '');
      expect(words).toMatch(/工作室尚未构建/);
      expect(words).not.toMatch(/[A-Za-z]{2,}/);
    }
  });

  it('shows the not-built page, in Chinese, as a browser renders it', async () => {
    const empty = studioRoutes({ root: mkdtempSync(path.join(tmpdir(), 'atelier-nostudio-')) });
    const res = await empty.request('/');
    const body = Buffer.from(await res.arrayBuffer());
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage({ viewport: { width: 900, height: 560 } });
      // The answer exactly as the route gives it, headers included, at an address of its own.
      await tab.route('http://atelier.test/', (route) =>
        route.fulfill({ status: res.status, headers: Object.fromEntries(res.headers), body }),
      );
      // This machine has no Chinese system font (a designer's has, which the page's font list names): the
      // engine's bundled ones stand in for it, for the screenshot to show the text.
      for (const weight of ['Regular', 'Bold'] as const) {
        await tab.route(`http://atelier.test/${weight}.otf`, (route) =>
          route.fulfill({ contentType: 'font/otf', body: readFileSync(bundledFontPath(weight)) }),
        );
      }
      await tab.goto('http://atelier.test/');
      await tab.addStyleTag({
        content:
          '@font-face { font-family: stand-in; src: url(/Regular.otf); } ' +
          '@font-face { font-family: stand-in; font-weight: bold; src: url(/Bold.otf); } ' +
          'body, h1 { font-family: stand-in, sans-serif; }',
      });
      await tab.evaluate(
        `Promise.all([document.fonts.load('16px stand-in', '工'), document.fonts.load('bold 16px stand-in', '工')])`,
      );
      expect(await tab.evaluate('document.documentElement.lang')).toBe('zh-CN');
      expect(await tab.evaluate('document.characterSet')).toBe('UTF-8');
      expect(await tab.title()).toBe('Atelier 工作室尚未构建');
      expect(await tab.locator('h1').textContent()).toBe('工作室尚未构建');
      expect(await tab.locator('pre').textContent()).toBe('npm run build');
      await snapshot(tab, 'studio-not-built');
    } finally {
      await browser.close();
    }
  });
});
