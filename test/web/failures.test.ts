/**
 * Failures as the designer reads them: a session that is gone (purged after its retention, or deleted) says so
 * in Chinese and offers a new one, and a conversation restored from an older transcript shows its raw,
 * technical error lines in the studio's own words, the original kept under 详细信息.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_FILE } from '../../src/agent/transcript.js';
import { createSession, okCalls, toolCall } from '../server/support.js';
import { canvasInk, countOf, eventually, finished, snapshot, textOf, visibleOf } from '../support/browser.js';
import { studioHarness } from './studio-harness.js';

const studio = studioHarness('failures', { model: true });

describe('a session that is gone', () => {
  it('says so in Chinese, not in the service’s English, and a new session is one click away', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [toolCall('create_document', { width: 400, height: 300, name: '旧会话' })]);
    const page = await studio.open(id);
    await eventually(textOf(page.getByRole('banner'))).toContain('旧会话');

    // The server forgets it (as its purge does once the retention is over), while the tab still shows it.
    const gone = await fetch(`${studio.url}/v1/sessions/${id}`, { method: 'DELETE' });
    expect(gone.status).toBe(204);
    await page.getByRole('tablist', { name: '输入方式' }).getByRole('tab', { name: '工具箱' }).click();
    await page.getByRole('button', { name: '查看文档信息', exact: true }).click();
    await page.getByRole('button', { name: '运行' }).click();

    const feed = page.getByRole('log', { name: '对话记录' });
    const notice = feed.getByRole('alert').last();
    await eventually(textOf(notice)).toContain('这个会话已不存在');
    expect(await textOf(feed)()).not.toMatch(/no session|timed out|deleted\)/);
    // Another try says it again, at the end of the feed, rather than nothing.
    await page.getByRole('button', { name: '运行' }).click();
    await eventually(countOf(feed.getByRole('alert').filter({ hasText: '这个会话已不存在' }))).toBe(1);
    await snapshot(page, '83-session-gone');

    await notice.getByRole('button', { name: '新建会话' }).click();
    await eventually(countOf(feed.getByRole('alert'))).toBe(0);
    const now = (await page.evaluate("sessionStorage.getItem('atelier.session')")) as string;
    expect(now).not.toBe(id);
    await eventually(visibleOf(page.getByRole('heading', { name: '新建文档或上传 PSD' }))).toBe(true);
    // The new session works: a document made in it is the tab's.
    await okCalls(studio.url, now, [
      toolCall('create_document', { width: 300, height: 200, name: '新会话' }),
    ]);
    await page.getByRole('button', { name: '返回工具列表' }).click();
    await page.getByRole('button', { name: '查看文档信息', exact: true }).click();
    await page.getByRole('button', { name: '运行' }).click();
    await finished(feed.getByRole('article', { name: '查看文档信息' }).last());
    await eventually(textOf(page.getByRole('banner'))).toContain('新会话');
  });
});

describe('the panes of a session that is gone', () => {
  it('no longer show its document, layers, history or tabs, and show the new session’s own after 新建会话', async () => {
    const id = await createSession(studio.url);
    await okCalls(studio.url, id, [
      toolCall('create_document', { width: 400, height: 300, name: '旧海报' }),
      toolCall('create_text_layer', { text: '春季新品', x: 20, y: 100, font_size: 96 }),
    ]);
    const page = await studio.open(id);
    const side = page.getByRole('complementary', { name: '面板' });
    const tabs = page.getByRole('tablist', { name: '文档' });
    await eventually(async () => (await canvasInk(page))?.dark ?? 0).toBeGreaterThan(0.01);
    await eventually(textOf(side)).toContain('春季新品');

    // Deleted while the tab is open; the tab finds out when it is looked at again (nothing was run).
    const gone = await fetch(`${studio.url}/v1/sessions/${id}`, { method: 'DELETE' });
    expect(gone.status).toBe(204);
    await page.evaluate("window.dispatchEvent(new Event('focus'))");

    const canvas = page.locator('.canvas-pane');
    await eventually(textOf(canvas)).toContain('这个会话已不存在');
    expect(await canvasInk(page)).toBeNull();
    expect(await countOf(canvas.locator('img'))()).toBe(0);
    expect(await textOf(tabs)()).not.toContain('旧海报');
    expect(await textOf(side)()).not.toContain('春季新品');
    expect(await textOf(side)()).toContain('会话已不存在');
    await side.getByRole('tab', { name: '历史记录' }).click();
    expect(await textOf(side)()).not.toContain('新建文档');
    expect(await textOf(side)()).toContain('会话已不存在');
    // The feed says it once, and does not claim that something the designer did was refused.
    const notice = page.getByRole('log', { name: '对话记录' }).getByRole('alert');
    await eventually(countOf(notice)).toBe(1);
    expect(await textOf(notice)()).toContain('这个会话已不存在');
    expect(await textOf(notice)()).not.toContain('刚才的操作没有执行');
    await snapshot(page, '83b-session-gone-panes');

    await canvas.getByRole('button', { name: '新建会话' }).click();
    await eventually(visibleOf(page.getByRole('heading', { name: '新建文档或上传 PSD' }))).toBe(true);
    await eventually(countOf(notice)).toBe(0);
    expect(await textOf(side)()).not.toContain('会话已不存在');
    const now = (await page.evaluate("sessionStorage.getItem('atelier.session')")) as string;
    // A document of the same name and size in the new session: its own blank page, not the old picture.
    await okCalls(studio.url, now, [
      toolCall('create_document', { width: 400, height: 300, name: '旧海报' }),
    ]);
    await page.evaluate("window.dispatchEvent(new Event('focus'))");
    await eventually(textOf(tabs)).toContain('旧海报');
    await eventually(async () => (await canvasInk(page))?.opaque ?? 0).toBeGreaterThan(0.99);
    expect((await canvasInk(page))?.dark).toBe(0);
    await eventually(textOf(side)).toContain('新建文档');
  });
});

/** Transcript lines as servers before this studio wrote them: raw error text, English, server paths. */
const OLD_TRANSCRIPT = [
  { role: 'system', content: '你是 Atelier 的修图助手。', model: { model: 'scripted-model' } },
  { role: 'user', content: '把标题图层的不透明度改成一半' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'c1',
        type: 'function',
        function: { name: 'set_layer_opacity', arguments: '{"layer_name":"标题","opacity":50}' },
      },
    ],
  },
  {
    role: 'tool',
    tool_call_id: 'c1',
    name: 'set_layer_opacity',
    content:
      "TypeError: Cannot read properties of undefined (reading 'opacity')\n    at setOpacity (/srv/atelier/dist/engine/layers.js:120:7)",
  },
  {
    event: 'error',
    code: 'internal',
    message:
      "内部错误：ENOENT: no such file or directory, open '/srv/atelier/sessions/abc/fonts/NotoSansSC.otf'。已完成的调用都保留着。",
  },
  { role: 'user', content: '再试一次' },
  { event: 'error', code: 'model_unavailable', message: 'Connection error.' },
  { role: 'user', content: '继续' },
  {
    event: 'error',
    code: 'max_steps',
    message:
      '本轮已向模型请求 8 次，达到上限（ATELIER_MODEL_MAX_STEPS=8），已停止。已完成的调用都保留着；发送“继续”可以接着做。',
  },
];

describe('a conversation restored from an older transcript', () => {
  it('shows its raw error lines in Chinese as the live chat does, with the original text kept under 详细信息', async () => {
    const id = await createSession(studio.url);
    const dir = path.join(studio.workspace, 'sessions', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, TRANSCRIPT_FILE),
      `${OLD_TRANSCRIPT.map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
    const page = await studio.open(id);
    const feed = page.getByRole('log', { name: '对话记录' });
    await eventually(textOf(feed)).toContain('把标题图层的不透明度改成一半');
    await eventually(countOf(feed.getByRole('alert'))).toBe(4);

    // What the designer reads: no path, no English, no error class.
    const read = (await page.evaluate(`(() => {
      const log = document.querySelector('[role="log"]');
      const copy = log.cloneNode(true);
      copy.querySelectorAll('details, code, pre').forEach((e) => e.remove());
      return copy.textContent;
    })()`)) as string;
    expect(read).not.toMatch(/ENOENT|TypeError|\/srv\/|Connection error|Cannot read/);

    const card = feed.getByRole('article', { name: '设置透明度' });
    await eventually(textOf(card.getByRole('alert'))).toContain('服务内部出错');
    const alerts = feed.locator('.notice');
    await eventually(textOf(alerts.nth(0))).toContain('服务内部出错');
    await eventually(textOf(alerts.nth(1))).toContain('模型服务出了问题');
    // A message already in the designer's words is shown as it was written.
    await eventually(textOf(alerts.nth(2))).toContain('本轮已向模型请求 8 次，达到上限');
    expect(await countOf(alerts.nth(2).getByText('详细信息'))()).toBe(0);

    // The original text is one click away, whole.
    const details = alerts.nth(0).getByText('详细信息');
    expect(await visibleOf(alerts.nth(0).getByText(/ENOENT/))()).toBe(false);
    await details.click();
    await eventually(textOf(alerts.nth(0).locator('pre'))).toContain(
      "ENOENT: no such file or directory, open '/srv/atelier/sessions/abc/fonts/NotoSansSC.otf'",
    );
    await card.getByText('详细信息').click();
    await eventually(textOf(card.locator('.failure-detail pre'))).toContain(
      '(/srv/atelier/dist/engine/layers.js:120:7)',
    );
    await alerts.nth(1).getByText('详细信息').click();
    await eventually(textOf(alerts.nth(1).locator('pre'))).toBe('Connection error.');
    expect(await textOf(alerts.nth(1).locator('code').first())()).toBe('model_unavailable');
    await snapshot(page, '84-restored-errors');
  });
});
