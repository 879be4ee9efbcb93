import { describe, expect, it } from 'vitest';
import { replayedCalls } from '../../src/agent/transcript.js';

const call = (id: string, name: string) => ({ id, type: 'function', function: { name, arguments: '{}' } });

describe('replayedCalls', () => {
  it("replays an assistant message's calls in order, without the ones that did not run", () => {
    const line = {
      role: 'assistant',
      content: null,
      tool_calls: [call('a', 'create_layer'), call('b', 'delete_layer'), call('c', 'undo')],
      not_run: ['b'],
    };
    expect(replayedCalls(line)).toEqual([call('a', 'create_layer'), call('c', 'undo')]);
  });

  it('skips every other line of an agent transcript', () => {
    expect(replayedCalls({ role: 'system', content: '…', model: {} })).toEqual([]);
    expect(replayedCalls({ role: 'user', content: '做海报' })).toEqual([]);
    expect(replayedCalls({ role: 'assistant', content: '好了' })).toEqual([]);
    expect(replayedCalls({ role: 'tool', tool_call_id: 'a', name: 'x', content: '{}' })).toEqual([]);
    expect(replayedCalls({ event: 'done', steps: 2 })).toEqual([]);
    expect(replayedCalls({ event: 'error', code: 'cancelled', message: '已取消' })).toEqual([]);
  });

  it('leaves tool calls and session transcript lines to the caller', () => {
    expect(replayedCalls({ name: 'create_layer', arguments: {} })).toBeNull();
    expect(replayedCalls(call('a', 'create_layer'))).toBeNull();
    expect(replayedCalls({ call: call('a', 'x'), result: { ok: true } })).toBeNull();
    expect(replayedCalls([1, 2])).toBeNull();
    expect(replayedCalls('text')).toBeNull();
  });
});
