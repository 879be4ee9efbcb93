/**
 * `atelier serve` from dist/, as a newcomer reads and runs it: what `--help` says a setting does is what the
 * running service does with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** Resolves with the first match of `pattern` in what the child writes to stderr from now on. */
function logged(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    let seen = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      seen += d;
      const m = pattern.exec(seen);
      if (m) resolve(m[0]);
    });
  });
}

describe('atelier serve --idle-timeout', () => {
  it('says, as the service does, that an idle session leaves memory and comes back whole', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    const line = help.stdout.slice(
      help.stdout.indexOf('--idle-timeout'),
      help.stdout.indexOf('--max-sessions'),
    );
    expect(line).not.toMatch(/dropping|unsaved work/);
    expect(line).toMatch(/leaves memory; its next request recovers it whole/);
    expect(help.stdout).toMatch(/ATELIER_SESSION_THREADS/);

    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--port', '0', '--idle-timeout', '1', '--workspace', tempDir('atelier-serve-idle-')],
      { env: { ...process.env, ATELIER_TOKEN: '' } },
    );
    children.push(child);
    const idled = logged(child, /closed after idling/);
    const base = await logged(child, /http:\/\/127\.0\.0\.1:\d+/);
    const { id } = (await (await fetch(`${base}/v1/sessions`, { method: 'POST' })).json()) as { id: string };
    const calls = await fetch(`${base}/v1/sessions/${id}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_calls: [{ name: 'create_document', arguments: { width: 16, height: 16, name: '未保存' } }],
      }),
    });
    expect(calls.status).toBe(200);
    await idled;
    const info = (await (await fetch(`${base}/v1/sessions/${id}`)).json()) as {
      documents: { name: string; unsaved_changes: boolean }[];
    };
    expect(info.documents).toEqual([expect.objectContaining({ name: '未保存', unsaved_changes: true })]);
  });
});
