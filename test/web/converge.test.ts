/**
 * A tab's feed brought in line with the session's conversation when it listens again (state/converge.ts): the
 * conversation's events as the server keeps them (no deltas, no progress), the feed as the tab folded what it
 * was told, with the toolbox's cards and its own notices that only it has.
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/web/api/types.js';
import { converge } from '../../src/web/state/converge.js';
import { noticeEvent, uploadNotice } from '../../src/web/state/feed.js';
import { call, fold, result, shown } from '../support/feed-events.js';

const turn = (text: string, id: string, answer: string): ChatEvent[] => [
  { type: 'user', text },
  call(id),
  result(id),
  { type: 'assistant', text: answer },
  { type: 'done', steps: 2 },
];

describe('a feed brought in line with the conversation', () => {
  it('gets the turn it missed after its own cards, and keeps the cards it had as they were', () => {
    const first = turn('一', 'm1', '好了一');
    const second = turn('二', 'm2', '好了二');
    // The tab saw the first turn, then ran a tool and had a message refused, then stopped listening.
    const feed = fold([call('web_1', 'undo'), result('web_1', 'undo')], fold(first));
    const withNotice = fold([noticeEvent('busy', '本会话还有一轮回复在进行')], feed);
    const withUpload = uploadNotice(withNotice, 'bad_request', '上传的文件是空的', 'a.png');
    const { items, cleared } = converge(withUpload, [...first, ...second]);
    expect(cleared).toBe(false);
    expect(shown(items)).toEqual([
      'user:一',
      'm1:ok',
      'assistant:好了一',
      'web_1:ok',
      '!busy',
      '!bad_request',
      'user:二',
      'm2:ok',
      'assistant:好了二',
    ]);
    // What it had keeps its keys: nothing it shows is drawn again.
    expect(items.slice(0, 6).map((i) => i.key)).toEqual(withUpload.map((i) => i.key));
    // Once more with nothing missed: the same.
    expect(shown(converge(items, [...first, ...second]).items)).toEqual(shown(items));
  });

  it('takes a call that was running when it stopped listening as the conversation has it, and drops half-streamed text', () => {
    const conversation: ChatEvent[] = [
      { type: 'user', text: '做' },
      call('m1'),
      result('m1'),
      { type: 'assistant', text: '完整的回答' },
      { type: 'done', steps: 1 },
    ];
    const feed = fold([
      { type: 'user', text: '做' },
      call('m1'),
      { type: 'progress', id: 'm1', stage: '处理中' } as ChatEvent,
    ]);
    const partway = fold([result('m1'), { type: 'assistant_delta', text: '完整' }], feed);
    expect(shown(converge(feed, conversation).items)).toEqual(['user:做', 'm1:ok', 'assistant:完整的回答']);
    expect(shown(converge(partway, conversation).items)).toEqual([
      'user:做',
      'm1:ok',
      'assistant:完整的回答',
    ]);
    // Still running on the server too: the card keeps the stage only this tab was told.
    const running = converge(feed, conversation.slice(0, 2)).items;
    expect(running[1]).toMatchObject({ status: 'running', stage: '处理中' });
  });

  it('empties a feed whose conversation was cleared meanwhile, or shows the new one started since', () => {
    const feed = fold([call('web_1', 'undo'), result('web_1', 'undo')], fold(turn('一', 'm1', '好了一')));
    expect(converge(feed, [])).toEqual({ items: [], cleared: true });
    const again = converge(feed, turn('新的', 'm9', '新的回答'));
    expect(again.cleared).toBe(false);
    expect(shown(again.items)).toEqual(['user:新的', 'm9:ok', 'assistant:新的回答']);
    // A tab that only ran tools has nothing of a conversation to lose: it gets the conversation after its cards.
    const tools = fold([call('web_1', 'undo'), result('web_1', 'undo')]);
    expect(converge(tools, []).items).toEqual(tools);
    expect(shown(converge(tools, turn('一', 'm1', '好了一')).items)).toEqual([
      'web_1:ok',
      'user:一',
      'm1:ok',
      'assistant:好了一',
    ]);
  });

  it('brings back no older turns than a reloaded tab kept, and tells repeated messages and call ids apart', () => {
    const turns = [
      ...turn('继续', 'call_1', '第一段'),
      ...turn('继续', 'call_1', '第二段'),
      ...turn('继续', 'call_1', '第三段'),
    ];
    // The tab kept only its newest items: the second and third turns, and has not seen the fourth.
    const kept = fold(turns.slice(5));
    const { items } = converge(kept, [...turns, ...turn('继续', 'call_1', '第四段')]);
    expect(shown(items)).toEqual([
      'user:继续',
      'call_1:ok',
      'assistant:第二段',
      'user:继续',
      'call_1:ok',
      'assistant:第三段',
      'user:继续',
      'call_1:ok',
      'assistant:第四段',
    ]);
  });
});
