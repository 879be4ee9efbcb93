/**
 * Load on loopback, bounded in time and count: 50 sessions at once, each running a 20-call editing script, one
 * HTTP request per call. Every result must succeed and each session must end with exactly its own layers — the
 * same structure the script gives in a fresh in-process session.
 */

import type { ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSession } from '../support/session.js';
import { createSession, sendCalls, startTestServer, type TestServer, toolCall } from './support.js';

const SESSIONS = 50;
const CALLS = 20;
// No wall-clock limit is asserted (machines are shared): speed under load is `npm run bench -- http mixed`.
// Each session starts a thread of its own, so the test gets room to finish on a busy machine.
const TEST_TIMEOUT_MS = 180_000;

function script(i: number): ChatCompletionMessageFunctionToolCall[] {
  const p = `s${i}`;
  const calls = [
    toolCall('create_document', { width: 64 + i, height: 48, name: `doc-${i}` }),
    toolCall('create_layer', { name: `${p}-a` }),
    toolCall('create_layer', { name: `${p}-b` }),
    toolCall('create_layer', { name: `${p}-c` }),
    toolCall('create_layer', { name: `${p}-d` }),
    toolCall('set_layer_opacity', { name: `${p}-a`, opacity: 1 + i }),
    toolCall('move_layer', { name: `${p}-b`, dx: i, dy: 2 }),
    toolCall('rename_layer', { new_name: `${p}-b2` }),
    toolCall('set_layer_visible', { name: `${p}-c`, visible: false }),
    toolCall('set_layer_blend_mode', { name: `${p}-d`, mode: 'multiply' }),
    toolCall('lock_layer', { name: `${p}-a`, locked: true }),
    toolCall('create_layer_group', { name: `${p}-g` }),
    toolCall('bring_to_front', { name: `${p}-c` }),
    toolCall('duplicate_layer'),
    toolCall('get_layer_bounds', { name: `${p}-b2` }),
    toolCall('list_all_layer_names'),
    toolCall('set_layer_opacity', { name: `${p}-d`, opacity: 50 }),
    toolCall('get_document_info'),
    toolCall('get_active_layer_info'),
    toolCall('get_layer_structure'),
  ];
  return calls.map((c, k) => ({ ...c, id: `call_${i}_${k}` }));
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ maxSessions: SESSIONS + 10 });
});
afterAll(() => server.close());

describe('load', () => {
  it(
    `${SESSIONS} concurrent sessions × ${CALLS} calls: no errors, no leakage, every result accounted for`,
    async () => {
      const ids = await Promise.all(Array.from({ length: SESSIONS }, () => createSession(server.url)));
      expect(new Set(ids).size).toBe(SESSIONS);

      const runs = await Promise.all(
        ids.map(async (id, i) => {
          const results: Record<string, unknown>[] = [];
          for (const call of script(i)) {
            const {
              messages,
              results: [result],
            } = await sendCalls(server.url, id, [call]);
            expect(messages).toHaveLength(1);
            expect(messages[0]!.tool_call_id).toBe(call.id);
            results.push(result!);
          }
          return results;
        }),
      );

      expect(runs.flat()).toHaveLength(SESSIONS * CALLS);
      const failures = runs.flatMap((r, i) => r.filter((x) => x.ok !== true).map((x) => ({ session: i, x })));
      expect(failures).toEqual([]);

      for (const [i, results] of runs.entries()) {
        // Only this session's own layers…
        const structure = JSON.stringify(results.at(-1));
        const names = [...structure.matchAll(/"name":"([^"]*)"/g)].map((m) => m[1]!);
        for (const name of names) expect(name === '背景' || name.startsWith(`s${i}-`), name).toBe(true);
        // …exactly as the same script leaves a fresh in-process session.
        const reference = newSession();
        const expected: unknown[] = [];
        for (const call of script(i)) expected.push(await reference.call(call));
        expect(results.at(-1)).toEqual(expected.at(-1));
        expect(results).toEqual(JSON.parse(JSON.stringify(expected)));
      }
      expect(server.store.size).toBe(SESSIONS);
      expect(server.logs).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
