/**
 * Validation + dispatch of a query call through Session.call, against the irreducible baseline of
 * parsing the same arguments and awaiting a function (what any dispatcher must do).
 */
import { Session } from '../src/calls/session.js';
import { microsPerCall, ratio, scratchDir } from './util.js';

export async function benchDispatch(): Promise<string[]> {
  const session = new Session({ workspace: scratchDir('dispatch') });
  await session.call({ name: 'create_document', arguments: { width: 100, height: 100 } });
  await session.call({ name: 'create_layer', arguments: { name: '前片' } });
  const query = {
    id: 'q',
    type: 'function',
    function: { name: 'get_layer_bounds', arguments: '{"name":"前片"}' },
  };
  const ours = await microsPerCall(() => session.call(query));
  const noop = async (args: unknown) => args;
  const baseline = await microsPerCall(() => noop(JSON.parse(query.function.arguments)));
  return [
    `dispatch: query call (parse + validate + run + result) median ${ours.toFixed(1)} µs/call (target < 50 µs)`,
    `dispatch: baseline (JSON.parse + await) ${baseline.toFixed(2)} µs/call; ratio ${ratio(ours, baseline)}`,
  ];
}
