/**
 * Which failure texts the studio shows as they are and which it words itself: what the server writes for the
 * designer today is shown unchanged; raw text (English, paths, error classes) from the HTTP API or an older
 * transcript is replaced by the studio's words for its code, the original kept as the detail.
 */
import { describe, expect, it } from 'vitest';
import { RESTORE_FAILED_MESSAGE } from '../../src/server/chat-rooms.js';
import { STREAM_FAILED_MESSAGE } from '../../src/server/sse.js';
import { translator } from '../../src/web/i18n.js';
import { designerWorded, failureWords, SESSION_GONE } from '../../src/web/state/failures.js';
import { call, newSession, ok } from '../support/session.js';

const t = translator('zh');

describe('failure words', () => {
  it('shows what the server words for designers as it is, names in English included', async () => {
    const session = newSession();
    await ok(session, 'create_document', { width: 100, height: 100, name: 'Summer Sale Poster Final' });
    const refused = await call(session, 'set_layer_opacity', {
      name: 'Big Summer Sale Title',
      opacity: 50,
    });
    expect(refused.ok).toBe(false);
    const tool = (refused as { error: { message: string } }).error.message;
    expect(tool).toContain('Big Summer Sale Title');
    for (const message of [
      tool,
      STREAM_FAILED_MESSAGE,
      RESTORE_FAILED_MESSAGE,
      '无法连接模型服务 127.0.0.1:9（ECONNREFUSED），重试 2 次后仍失败。请检查 ATELIER_MODEL_BASE_URL 和网络，或确认本地模型服务已启动。',
      '模型服务 api.example.com 拒绝了请求（HTTP 400）。服务说明：this model does not support tools。请检查模型是否支持工具调用。',
    ]) {
      expect([message, designerWorded(message)]).toEqual([message, true]);
      expect(failureWords(t, 'internal', message)).toEqual({ text: message });
    }
  });

  it('words raw text itself by its code and keeps the original as the detail', () => {
    const raw = {
      internal:
        "内部错误：ENOENT: no such file or directory, open '/srv/atelier/x.otf'。已完成的调用都保留着。",
      model_unavailable: 'Connection error.',
      bad_request: 'the body must be {"message": "…"} with a non-empty message',
      other: "内部错误：Cannot read properties of undefined (reading 'width')。",
    };
    expect(failureWords(t, 'internal', raw.internal)).toEqual({
      text: t('failure.internal'),
      detail: raw.internal,
    });
    expect(failureWords(t, 'model_unavailable', raw.model_unavailable)).toEqual({
      text: t('failure.model'),
      detail: raw.model_unavailable,
    });
    expect(failureWords(t, 'bad_request', raw.bad_request).text).toBe(t('failure.bad_request'));
    expect(failureWords(t, 'weird', raw.other)).toEqual({ text: t('failure.other'), detail: raw.other });
    expect(designerWorded('TypeError: x is not a function\n    at run (/app/x.js:1:2)')).toBe(false);
    expect(designerWorded('内部错误：TypeError: x')).toBe(false);
    expect(designerWorded('打不开 C:\\Users\\a\\b.psd')).toBe(false);
  });

  it('shows the server’s words for a busy session, which say which busy it is', () => {
    // A reply running, the session served by another server process: the studio's one wording for `busy` (a
    // reply running, perhaps in another tab) was wrong for the second.
    for (const message of [
      '本会话还有一轮回复在进行：请等它结束或先取消它',
      '会话“a1b2c3”由另一个服务进程提供：请把它的请求发到那里',
    ]) {
      expect(failureWords(t, 'busy', message)).toEqual({ text: message });
    }
    // An older server's English: the studio's words, the original kept.
    const english = 'a reply is still running in this session: wait for it or cancel it';
    expect(failureWords(t, 'busy', english)).toEqual({ text: t('notice.busy'), detail: english });
  });

  it('always words the failures the studio knows itself', () => {
    expect(failureWords(t, 'network', 'Failed to fetch')).toEqual({ text: t('notice.network') });
    expect(failureWords(t, SESSION_GONE, SESSION_GONE).text).toContain('这个会话已不存在');
  });
});
