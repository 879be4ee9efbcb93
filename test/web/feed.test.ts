import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/web/api/types.js';
import { converge } from '../../src/web/state/converge.js';
import type { CallItem, FeedItem } from '../../src/web/state/feed.js';
import { withMcpCalls } from '../../src/web/state/mcp-calls.js';
import { call, fold, result, shown } from '../support/feed-events.js';

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

describe('a chat turn while cards come from elsewhere', () => {
  it('keeps the streamed answer one bubble and puts an MCP client’s card below the turn', () => {
    const items = fold([
      { type: 'user', text: '做海报' },
      { type: 'assistant_delta', text: '好的，' },
      call('mcp_a1_1'),
      { type: 'progress', id: 'mcp_a1_1', stage: '新建' },
      { type: 'assistant_delta', text: '先建一个图层。' },
    ]);
    expect(shown(items)).toEqual(['user:做海报', 'assistant…:好的，先建一个图层。', 'mcp_a1_1:running']);
    expect((items[2] as CallItem).stage).toBe('新建');

    // The turn goes on above the card: the model's own call and text keep their order.
    const later = fold(
      [
        { type: 'assistant', text: '好的，先建一个图层。' },
        call('call_1'),
        result('mcp_a1_1'),
        result('call_1'),
        { type: 'assistant_delta', text: '建好了' },
        { type: 'assistant', text: '建好了。' },
        { type: 'done', steps: 2 },
      ],
      items,
    );
    expect(shown(later)).toEqual([
      'user:做海报',
      'assistant:好的，先建一个图层。',
      'call_1:ok',
      'assistant:建好了。',
      'mcp_a1_1:ok',
    ]);
    // The streamed bubble is the same entry throughout (not drawn again).
    expect(later[1]!.key).toBe(items[1]!.key);

    // Over, the turn is followed by what comes next, in the order it comes.
    const next = fold(
      [
        call('mcp_a1_2'),
        result('mcp_a1_2'),
        { type: 'user', text: '再来' },
        { type: 'assistant', text: '好' },
      ],
      later,
    );
    expect(shown(next).slice(4)).toEqual(['mcp_a1_1:ok', 'mcp_a1_2:ok', 'user:再来', 'assistant:好']);
  });

  it('lets a toolbox run (this tab’s or another’s) and its end pass under a turn without ending its text', () => {
    const items = fold([
      { type: 'user', text: '调亮一点' },
      { type: 'assistant_delta', text: '我来' },
      call('web_x_1', 'undo'),
      result('web_x_1', 'undo'),
      { type: 'done', steps: 0, calls: 1 },
      { type: 'assistant_delta', text: '调一下。' },
    ]);
    expect(shown(items)).toEqual(['user:调亮一点', 'assistant…:我来调一下。', 'web_x_1:ok']);
  });

  it('takes a call that comes while the text streams as elsewhere’s, whatever its id', () => {
    // The model's calls come after its text is whole: this one is a script's streamed run.
    const items = fold([
      { type: 'user', text: '看看' },
      { type: 'assistant_delta', text: '稍等' },
      call('script-1'),
      { type: 'assistant_delta', text: '，看好了。' },
      { type: 'assistant', text: '稍等，看好了。' },
      { type: 'done', steps: 1 },
    ]);
    expect(shown(items)).toEqual(['user:看看', 'assistant:稍等，看好了。', 'script-1:running']);
  });

  it('ends a cancelled turn above the cards of elsewhere, which go on running', () => {
    const items = fold([
      { type: 'user', text: '做海报' },
      { type: 'assistant', text: '先保存。' },
      call('call_1', 'save_document'),
      call('mcp_b_1'),
      { type: 'error', code: 'cancelled', message: '已取消本轮。' },
      result('mcp_b_1'),
    ]);
    expect(shown(items)).toEqual([
      'user:做海报',
      'assistant:先保存。',
      'call_1:error',
      '!cancelled',
      'mcp_b_1:ok',
    ]);
    expect((items[4] as CallItem).error).toBeUndefined();
  });

  it('puts a card of elsewhere that comes between turns where it comes', () => {
    const items = fold([
      { type: 'user', text: '一' },
      { type: 'assistant', text: '好了一' },
      { type: 'done', steps: 1 },
      call('mcp_c_1'),
      { type: 'user', text: '二' },
      { type: 'assistant_delta', text: '好' },
    ]);
    expect(shown(items)).toEqual([
      'user:一',
      'assistant:好了一',
      'mcp_c_1:running',
      'user:二',
      'assistant…:好',
    ]);
  });

  it('keeps that order when the tab catches up with the conversation (a reload)', () => {
    const events: ChatEvent[] = [
      { type: 'user', text: '做海报' },
      { type: 'assistant', text: '好的，先建一个图层。' },
      call('call_1'),
      result('call_1'),
      { type: 'assistant', text: '建好了。' },
      { type: 'done', steps: 2 },
    ];
    const feed = fold([
      { type: 'user', text: '做海报' },
      { type: 'assistant_delta', text: '好的，' },
      call('mcp_a1_1'),
      result('mcp_a1_1'),
      { type: 'assistant_delta', text: '先建一个图层。' },
      ...events.slice(1),
    ]);
    const before = shown(feed);
    expect(before).toEqual([
      'user:做海报',
      'assistant:好的，先建一个图层。',
      'call_1:ok',
      'assistant:建好了。',
      'mcp_a1_1:ok',
    ]);
    expect(shown(converge(feed, events).items)).toEqual(before);
  });

  it('takes a turn running in another tab as open again after a reload, from the conversation', () => {
    // A reload ends the page's view of the turn; the conversation the event stream starts with says it runs.
    const running: ChatEvent[] = [{ type: 'user', text: '做海报' }];
    const restored = fold([...running, { type: 'done', steps: 0 }]);
    const caught = converge(restored, running).items;
    const items = fold(
      [
        { type: 'assistant_delta', text: '好的，' },
        call('mcp_d_1'),
        { type: 'assistant_delta', text: '马上。' },
      ],
      caught,
    );
    expect(shown(items)).toEqual(['user:做海报', 'assistant…:好的，马上。', 'mcp_d_1:running']);
  });

  it('puts the MCP calls a tab missed below a turn still running, and the turn goes on above them', () => {
    const items = fold([
      { type: 'user', text: '做海报' },
      { type: 'assistant_delta', text: '好的，' },
      call('mcp_e_1'),
    ]);
    // Back after a while away: one call it saw has ended, one it missed came after.
    const caught = withMcpCalls(items, [
      call('mcp_e_1'),
      result('mcp_e_1'),
      call('mcp_e_2'),
      result('mcp_e_2'),
    ]);
    expect(shown(caught)).toEqual(['user:做海报', 'assistant…:好的，', 'mcp_e_1:ok', 'mcp_e_2:ok']);
    const after = fold(
      [
        { type: 'assistant_delta', text: '马上。' },
        { type: 'assistant', text: '好的，马上。' },
        call('call_1'),
      ],
      caught,
    );
    expect(shown(after)).toEqual([
      'user:做海报',
      'assistant:好的，马上。',
      'call_1:running',
      'mcp_e_1:ok',
      'mcp_e_2:ok',
    ]);
  });
});
