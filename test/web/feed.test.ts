import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/web/api/types.js';
import { applyEvent, type CallItem, type FeedItem } from '../../src/web/state/feed.js';

const fold = (events: ChatEvent[]) => events.reduce<FeedItem[]>(applyEvent, []);
const strip = (items: FeedItem[]) => items.map(({ key: _key, ...rest }) => rest);

describe('the conversation folded from events', () => {
  it('streams the model’s text into one message and ends it', () => {
    const items = fold([
      { type: 'user', text: '做海报' },
      { type: 'assistant_delta', text: '好的，' },
      { type: 'assistant_delta', text: '马上做。' },
      { type: 'assistant', text: '好的，马上做。' },
      { type: 'done', steps: 1 },
    ]);
    expect(strip(items)).toEqual([
      { kind: 'user', text: '做海报' },
      { kind: 'assistant', text: '好的，马上做。', streaming: false },
    ]);
  });

  it('takes a card from running through progress to its result, matched by id', () => {
    const items = fold([
      { type: 'tool_call', id: 'a', name: 'generate_garment_preview', label: '生成花样预览', arguments: {} },
      { type: 'tool_call', id: 'b', name: 'get_document_info', label: '查看文档信息', arguments: {} },
      { type: 'progress', id: 'a', stage: '提取印花', fraction: 0.1 },
      {
        type: 'tool_result',
        id: 'a',
        name: 'generate_garment_preview',
        ok: true,
        result: { ok: true, proposed_pieces: [] },
        images: [{ url: '/v1/sessions/s/images/1.png', mime: 'image/png', caption: '预览' }],
      },
      {
        type: 'tool_result',
        id: 'b',
        name: 'get_document_info',
        ok: false,
        result: {
          ok: false,
          error: { code: 'no_document', message: '没有打开的文档', hint: '先调用 create_document' },
        },
      },
    ]) as CallItem[];
    expect(items[0]).toMatchObject({
      status: 'ok',
      stage: '提取印花',
      fraction: 0.1,
      images: [{ caption: '预览' }],
    });
    expect(items[1]).toMatchObject({
      status: 'error',
      error: { code: 'no_document', message: '没有打开的文档', hint: '先调用 create_document' },
    });
  });

  it('marks what still runs as failed when the turn ends in an error, and says why', () => {
    const items = fold([
      { type: 'tool_call', id: 'a', name: 'save_document', label: '保存文档', arguments: {} },
      { type: 'error', code: 'cancelled', message: '已取消' },
    ]);
    expect(items[0]).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    expect(items[1]).toMatchObject({ kind: 'notice', code: 'cancelled', message: '已取消' });
  });
});
