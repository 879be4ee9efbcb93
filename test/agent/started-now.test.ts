import { describe, expect, it } from 'vitest';
import { startedNow } from '../../src/agent/event-shapes.js';

describe('startedNow', () => {
  it('never gives the same time twice, so a turn and a call begun in one millisecond keep their order', () => {
    const stamps = Array.from({ length: 5000 }, () => startedNow());
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]!).toBeGreaterThan(stamps[i - 1]!);
    // Ahead of the clock by at most one millisecond per stamp given within one.
    expect(stamps.at(-1)!).toBeLessThanOrEqual(Date.now() + stamps.length);
    expect(stamps[0]!).toBeGreaterThanOrEqual(Date.now() - 60_000);
  });
});
