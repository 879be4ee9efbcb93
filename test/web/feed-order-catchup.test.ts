/**
 * A tab that catches up after missing events (hidden past its listening, or (re)joined): the conversation comes
 * first (state/converge.ts), then an MCP client's kept calls (state/mcp-calls.ts). A call it missed is put after
 * everything the tab saw (it missed it later), after the kept calls before it and before those after it; among
 * the turns it missed too, by the server's clock: a turn's message and a call say when they started (`at`).
 * Records from before they did are placed as late as that order allows.
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

  describe('by when the turns and the calls started', () => {
    /** A turn whose message the server stamped at `at`, and an MCP call it stamped at `at`. */
    const timedTurn = (text: string, id: string, answer: string, at: number): ChatEvent[] => [
      { type: 'user', text, at },
      ...turn(text, id, answer).slice(1),
    ];
    const timedMcp = (id: string, at: number): ChatEvent[] => [{ ...call(id), at } as ChatEvent, result(id)];
    const one = timedTurn('一', 'c1', '好了一', 1_000);
    const two = timedTurn('二', 'c2', '好了二', 3_000);
    const turnTwo = ['user:二', 'c2:ok', 'assistant:好了二'];
    const turnOne = ['user:一', 'c1:ok', 'assistant:好了一'];

    it('puts a call made before a turn it missed above that turn', () => {
      const feed = fold([...timedMcp('mcp_1', 500), ...one]);
      const kept = [...timedMcp('mcp_1', 500), ...timedMcp('mcp_2', 2_000)];
      const items = catchUp(feed, [...one, ...two], kept);
      expect(shown(items)).toEqual(['mcp_1:ok', ...turnOne, 'mcp_2:ok', ...turnTwo]);
      // Taken again, the same.
      expect(shown(catchUp(items, [...one, ...two], kept))).toEqual(shown(items));
      // A tab that joined the session, having seen none of it: each call at its time.
      const joined = catchUp([], [...one, ...two], kept);
      expect(shown(joined)).toEqual(['mcp_1:ok', ...turnOne, 'mcp_2:ok', ...turnTwo]);
    });

    it('puts calls made during or after a turn it missed below it, in their order', () => {
      const feed = fold(one);
      const kept = [...timedMcp('mcp_2', 2_000), ...timedMcp('mcp_3', 3_500), ...timedMcp('mcp_4', 9_000)];
      const items = catchUp(feed, [...one, ...two], kept);
      expect(shown(items)).toEqual([...turnOne, 'mcp_2:ok', ...turnTwo, 'mcp_3:ok', 'mcp_4:ok']);
    });

    it('never puts a call above a kept call before it, nor below one after it that it shows', () => {
      // The kept call before it has no time (an older record): it went below the turn it missed, and so does this one.
      const untimedBefore = catchUp(
        fold(one),
        [...one, ...two],
        [...mcp('mcp_2'), ...timedMcp('mcp_3', 2_000)],
      );
      expect(shown(untimedBefore)).toEqual([...turnOne, ...turnTwo, 'mcp_2:ok', 'mcp_3:ok']);
      // The one after it is shown above the turn it missed (the feed had it, the turn came in below): above it.
      const feed = fold([...timedMcp('mcp_1', 500), ...one, ...timedMcp('mcp_3', 5_000)]);
      const kept = [...timedMcp('mcp_1', 500), ...timedMcp('mcp_2', 2_000), ...timedMcp('mcp_3', 5_000)];
      const items = catchUp(feed, [...one, ...two], kept);
      expect(shown(items)).toEqual(['mcp_1:ok', ...turnOne, 'mcp_2:ok', 'mcp_3:ok', ...turnTwo]);
    });

    it('puts a call above the turn still running it missed, and one made since beside it', () => {
      const running: ChatEvent[] = [{ type: 'user', text: '二', at: 3_000 }, call('c2')];
      const feed = fold(one);
      const caught = converge(feed, [...one, ...running]).items;
      const kept = [...timedMcp('mcp_2', 2_000), ...timedMcp('mcp_22', 2_500), ...timedMcp('mcp_3', 3_500)];
      const items = withMcpCalls(caught, kept);
      expect(shown(items)).toEqual([
        ...turnOne,
        'mcp_2:ok',
        'mcp_22:ok',
        'user:二',
        'c2:running',
        'mcp_3:ok',
      ]);
      expect(items.filter((i) => i.kind === 'call' && i.aside).map((i) => (i as { id: string }).id)).toEqual([
        'mcp_3',
      ]);
      // The turn goes on above the card made meanwhile.
      const after = fold([result('c2'), { type: 'assistant', text: '好了二' }], items);
      expect(shown(after)).toEqual([...turnOne, 'mcp_2:ok', 'mcp_22:ok', ...turnTwo, 'mcp_3:ok']);
    });

    it('places as before a call or a turn recorded without its time', () => {
      const feed = fold(one);
      // The turn it missed has no time (an older transcript): the call goes below it.
      const untimed = catchUp(feed, [...one, ...second], timedMcp('mcp_2', 2_000));
      expect(shown(untimed)).toEqual([...turnOne, ...turnTwo, 'mcp_2:ok']);
      // The call has none (an older record): below the turn too.
      const old = catchUp(feed, [...one, ...two], mcp('mcp_2'));
      expect(shown(old)).toEqual([...turnOne, ...turnTwo, 'mcp_2:ok']);
    });
  });
});
