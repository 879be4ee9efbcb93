/**
 * A notice of this tab's own (a refused message, a failed upload or run) while a chat turn of elsewhere streams
 * (another tab's, a script's): it does not end that turn. It goes below the turn as a card from elsewhere does,
 * and the answer goes on in the same bubble above it (state/feed.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/web/api/types.js';
import { applyEvent, type CallItem, uploadNotice, withNotice } from '../../src/web/state/feed.js';
import { call, fold, result, shown } from '../support/feed-events.js';

/** Another tab's turn, its answer half streamed. */
const streaming: ChatEvent[] = [
  { type: 'user', text: '做海报' },
  { type: 'assistant_delta', text: '好的，' },
];
/** The rest of that turn: more text, the whole text, the model's call, the end. */
const rest: ChatEvent[] = [
  { type: 'assistant_delta', text: '先建图层。' },
  { type: 'assistant', text: '好的，先建图层。' },
  call('call_1'),
  result('call_1'),
  { type: 'assistant', text: '建好了。' },
  { type: 'done', steps: 2 },
];
const whole = ['user:做海报', 'assistant:好的，先建图层。', 'call_1:ok', 'assistant:建好了。'];

describe('a notice of this tab’s own while another tab’s turn streams', () => {
  it('leaves a failed upload below the turn, whose answer goes on in one bubble', () => {
    const items = fold(rest, uploadNotice(fold(streaming), 'unsupported_media_type', '不是图像', '说明.psd'));
    expect(shown(items)).toEqual([...whole, '!unsupported_media_type']);
  });

  it('leaves a refused message below the turn, which stays open and streaming', () => {
    const refused = withNotice(fold(streaming), { code: 'busy', message: '本会话还有一轮回复在进行' });
    expect(shown(refused)).toEqual(['user:做海报', 'assistant…:好的，', '!busy']);
    expect(refused[0]).toMatchObject({ kind: 'user', open: true });
    expect(shown(fold(rest, refused))).toEqual([...whole, '!busy']);
  });

  it('fails only the cards of the run it tells of, and the turn’s own end still goes above it', () => {
    const before = fold([...streaming, call('mcp_a_1'), call('web_1', 'undo')]);
    const broken = withNotice(before, { code: 'network', message: '网络中断' }, ['web_1']);
    expect(shown(broken)).toEqual([
      'user:做海报',
      'assistant…:好的，',
      'mcp_a_1:running',
      'web_1:error',
      '!network',
    ]);
    expect((broken[3] as CallItem).error).toEqual({ code: 'network', message: '网络中断' });
    const cancelled = applyEvent(fold([{ type: 'assistant_delta', text: '先建' }], broken), {
      type: 'error',
      code: 'cancelled',
      message: '已取消本轮。',
    });
    expect(shown(cancelled)).toEqual([
      'user:做海报',
      'assistant:好的，先建',
      '!cancelled',
      'mcp_a_1:running',
      'web_1:error',
      '!network',
    ]);
  });

  it('goes at the end when no turn runs, ending nothing', () => {
    const done = fold([...streaming, ...rest, call('mcp_b_1')]);
    const items = withNotice(done, { code: 'busy', message: '忙' });
    expect(shown(items)).toEqual([...whole, 'mcp_b_1:running', '!busy']);
    expect(items.at(-1)).not.toHaveProperty('aside');
  });
});
