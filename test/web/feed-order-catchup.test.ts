/**
 * A tab that catches up after missing events (hidden past its listening, or (re)joined): the conversation comes
 * first (state/converge.ts), then an MCP client's kept calls (state/mcp-calls.ts). Neither says when its
 * entries happened — a chat turn carries no time at all — so a call it missed is put where it must be: after
 * everything the tab saw (it missed it later) and after the kept calls before it, before those after it.
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/web/api/types.js';
import { converge } from '../../src/web/state/converge.js';
import type { FeedItem } from '../../src/web/state/feed.js';
import { withMcpCalls } from '../../src/web/state/mcp-calls.js';
import { call, fold, result, shown } from '../support/feed-events.js';

const turn = (text: string, id: string, answer: string): ChatEvent[] => [
  { type: 'user', text },
  call(id),
  result(id),
  { type: 'assistant', text: answer },
  { type: 'done', steps: 2 },
];
const mcp = (id: string): ChatEvent[] => [call(id), result(id)];

/** As the tab takes its catch-up: the conversation, then the kept calls. */
const catchUp = (feed: FeedItem[], conversation: ChatEvent[], kept: ChatEvent[]) =>
  withMcpCalls(converge(feed, conversation).items, kept);

const first = turn('一', 'c1', '好了一');
const second = turn('二', 'c2', '好了二');

describe('a tab catching up with the turns and the MCP calls it missed', () => {
  it('puts a call it missed below the turn it saw after the call before it', () => {
    // Saw an MCP call, then a turn; missed a call made after both.
    const feed = fold([...mcp('mcp_1'), ...first]);
    const items = catchUp(feed, first, [...mcp('mcp_1'), ...mcp('mcp_2')]);
    expect(shown(items)).toEqual(['mcp_1:ok', 'user:一', 'c1:ok', 'assistant:好了一', 'mcp_2:ok']);
  });

  it('puts a call it missed after a turn it missed before it, as when it saw none of the calls', () => {
    const feed = fold([...mcp('mcp_1'), ...first]);
    const items = catchUp(feed, [...first, ...second], [...mcp('mcp_1'), ...mcp('mcp_2')]);
    const expected = ['user:二', 'c2:ok', 'assistant:好了二', 'mcp_2:ok'];
    expect(shown(items)).toEqual(['mcp_1:ok', 'user:一', 'c1:ok', 'assistant:好了一', ...expected]);
    // A tab that showed none of the kept calls (joined the session) has them in the same order.
    const joined = catchUp(fold(first), [...first, ...second], mcp('mcp_2'));
    expect(shown(joined)).toEqual(['user:一', 'c1:ok', 'assistant:好了一', ...expected]);
  });

  it('keeps a call it lacks between two it shows above the later one, and none twice', () => {
    // A feed kept across a reload lost a card the server still keeps.
    const feed = fold([...mcp('mcp_1'), ...first, ...mcp('mcp_3')]);
    const kept = [...mcp('mcp_1'), ...mcp('mcp_2'), ...mcp('mcp_3'), ...mcp('mcp_4')];
    const items = catchUp(feed, first, kept);
    expect(shown(items)).toEqual([
      'mcp_1:ok',
      'user:一',
      'c1:ok',
      'assistant:好了一',
      'mcp_2:ok',
      'mcp_3:ok',
      'mcp_4:ok',
    ]);
    expect(shown(catchUp(items, first, kept))).toEqual(shown(items));
  });

  it('leaves out the kept calls older than the first one it shows', () => {
    const feed = fold([...first, ...mcp('mcp_2')]);
    const items = catchUp(feed, first, [...mcp('mcp_1'), ...mcp('mcp_2'), ...mcp('mcp_3')]);
    expect(shown(items)).toEqual(['user:一', 'c1:ok', 'assistant:好了一', 'mcp_2:ok', 'mcp_3:ok']);
  });
});
