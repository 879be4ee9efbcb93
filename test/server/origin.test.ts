/**
 * `Origin: null` on a server without a token, from real Chromium: a sandboxed frame or a `file://` page (any web
 * page can make one) may not change anything, while the studio's own page, whose `no-referrer` policy lets a
 * browser send `null` for its POSTs too, still can.
 */
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, requireBuiltStudio } from '../support/browser.js';
import { tempDir } from '../support/session.js';
import { startTestServer, type TestServer } from './support.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  requireBuiltStudio();
  server = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A raw request, for the headers fetch will not let a caller set (Origin, Sec-Fetch-Site). */
function raw(method: string, urlPath: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method, path: urlPath, headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Origin: null without a token', () => {
  it('refuses a session opened from a sandboxed frame or a file:// page, and opens none', async () => {
    const page = await browser.newPage();
    try {
      // A POST no page may read the answer of (no-cors), sent without asking the server first; it settles once
      // the server has answered. The outcome that matters is on the server: no session.
      const post = `fetch('${server.url}/v1/sessions', { method: 'POST', mode: 'no-cors' })`;
      const settled = "then(() => 'answered', () => 'failed')";
      await page.setContent(
        `<script>window.heard = new Promise((r) => addEventListener('message', (e) => r(e.data)))</script>` +
          `<iframe sandbox="allow-scripts" srcdoc="<script>${post}.${settled}.then((m) => parent.postMessage(m, '*'))</script>"></iframe>`,
      );
      expect(await page.evaluate('window.heard')).toBe('answered');
      expect(server.store.size).toBe(0);

      const file = path.join(tempDir('atelier-origin-'), 'page.html');
      writeFileSync(file, `<script>window.heard = ${post}.${settled}</script>`);
      await page.goto(`file://${file}`);
      expect(await page.evaluate('window.heard')).toBe('answered');
      expect(server.store.size).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("still takes the studio page's own changes, and reads from anywhere", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/`);
      const status = await page.evaluate("fetch('/v1/sessions', { method: 'POST' }).then((r) => r.status)");
      expect(status).toBe(201);
    } finally {
      await page.close();
    }
    // What a browser that follows the Fetch standard to the letter sends for the page's POST under no-referrer.
    expect(await raw('POST', '/v1/sessions', { origin: 'null', 'sec-fetch-site': 'same-origin' })).toBe(201);
    expect(await raw('POST', '/v1/sessions', { origin: 'null', 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await raw('POST', '/v1/sessions', { origin: 'null' })).toBe(403);
    expect(await raw('GET', '/v1/tools', { origin: 'null' })).toBe(200);
  });
});
