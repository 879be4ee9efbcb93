/** A tool card's opening event, from a model's raw arguments (src/agent/call-events.ts). */
import { describe, expect, it } from 'vitest';
import { toolCallEvent } from '../../src/agent/call-events.js';

describe('toolCallEvent', () => {
  it('parses JSON arguments, and keeps as text what is not JSON or nests past any tool', () => {
    expect(toolCallEvent('a', 'create_layer', '{"name":"层"}').arguments).toEqual({ name: '层' });
    expect(toolCallEvent('a', 'create_layer', '{"name":').arguments).toBe('{"name":');
    // Thousands deep: kept as the model's text, which the event stream and a reloaded history can encode.
    const deep = `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const event = toolCallEvent('a', 'create_layer', deep);
    expect(event.arguments).toBe(deep);
    expect(() => JSON.stringify(event)).not.toThrow();
  });

  it('opens the card of a call without parameters with {}, whether its arguments are "", "null" or {}', () => {
    for (const raw of ['', 'null', ' null ', '{}']) {
      expect(toolCallEvent('a', 'get_document_info', raw).arguments, raw).toEqual({});
    }
  });
});
