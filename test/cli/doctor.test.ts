/** `atelier doctor` through the real binary: real work end to end, one line per check, exit code by outcome. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { startScriptedModel } from '../support/scripted-model.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'doctor-test-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Vitest's own test timeout: the most a hung child may run before it is killed. */
const HANG_LIMIT = 60_000;

/** The doctor's scratch folders in the temp dir (it must remove its own). */
async function scratchFolders(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((n) => n.startsWith('atelier-doctor-'));
}

describe('atelier doctor', () => {
  it('passes every check on this machine, says what it did, and leaves nothing behind', async () => {
    const before = await scratchFolders();
    const ws = path.join(await tempDir(), 'ws');
    const r = await runCli(['doctor', '--workspace', ws], {
      env: { ATELIER_VISION_BASE_URL: '', ATELIER_VISION_MODEL: '', ATELIER_MODEL: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    for (const name of ['node', 'workspace', 'compositor', 'text', 'psd', 'png', 'model', 'vision']) {
      expect(lines.find((l) => l.split(/\s+/)[1] === name)).toMatch(/^ok /);
    }
    expect(r.stdout).toContain('WebAssembly SIMD');
    expect(r.stdout).toContain('Chinese renders with Noto Sans SC');
    expect(r.stdout).toMatch(/reopened a PSD with its 3 layers/);
    expect(lines.at(-1)).toBe('atelier doctor: all checks passed');
    // The workspace was checked (and created), but the smoke test ran elsewhere and was removed.
    expect(existsSync(ws)).toBe(true);
    expect(await readdir(ws)).toEqual([]);
    expect(await scratchFolders()).toEqual(before);
  });

  it('fails with exit code 1 and says why when the workspace cannot be used', async () => {
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, 'not a folder');
    const r = await runCli(['doctor', '--workspace', path.join(file, 'ws')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL +workspace +ENOTDIR/m);
    expect(r.stdout).toMatch(/^ok +compositor/m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('atelier doctor: 1 check(s) failed');
  });

  // Node's recursive mkdir retried /proc (which answers a new folder with ENOENT) and the folder in it for ever.
  it.runIf(existsSync('/proc/self'))(
    'fails the workspace check, without hanging, for a folder in a place that takes no new folders (/proc)',
    async () => {
      // Without the fix the child never ends: it is killed when the test gives up, not left spinning.
      const child = spawn(process.execPath, [BIN, 'doctor', '--workspace', '/proc/atelier-doctor/ws'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: HANG_LIMIT,
        killSignal: 'SIGKILL',
      });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const r = { code, stdout };
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /^FAIL +workspace +cannot create the folder \/proc\/atelier-doctor: \/proc does not accept new folders \(ENOENT/m,
      );
      expect(r.stdout).toMatch(/^ok +psd/m);
      expect(r.stdout.trim().split('\n').at(-1)).toBe('atelier doctor: 1 check(s) failed');
    },
    HANG_LIMIT + 5_000,
  );

  // The same mkdir made run, mcp and serve hang before they read a line or listened.
  it.runIf(existsSync('/proc/self'))(
    'run, mcp and serve refuse a workspace in /proc with one Chinese line, without hanging',
    async () => {
      for (const command of ['run', 'mcp', 'serve']) {
        const child = spawn(
          process.execPath,
          [
            BIN,
            command,
            '--workspace',
            '/proc/atelier-cli/ws',
            ...(command === 'serve' ? ['--port', '0'] : []),
          ],
          { stdio: ['pipe', 'pipe', 'pipe'], timeout: HANG_LIMIT / 3, killSignal: 'SIGKILL' },
        );
        child.stdin.end('');
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code, command).toBe(1);
        expect(stderr, command).toBe('atelier: 无法创建或打开工作区目录“ws”：所在位置不能新建目录\n');
      }
    },
    HANG_LIMIT + 5_000,
  );

  it('a half-configured vision model is a warning, not a failure', async () => {
    const r = await runCli(['doctor', '--workspace', path.join(await tempDir(), 'ws')], {
      env: { ATELIER_VISION_BASE_URL: 'http://127.0.0.1:9/v1', ATELIER_VISION_MODEL: '' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warn +vision +set both ATELIER_VISION_BASE_URL and ATELIER_VISION_MODEL/m);
  });

  it('a configured vision model is really asked: a right answer passes, unreachable or nonsense fails and says so', async () => {
    const ws = path.join(await tempDir(), 'ws');
    const model = await startScriptedModel([
      { text: '{"colour":"red"}' },
      { text: 'The square is red.' },
      { text: '{"colour":"blue"}' },
      { status: 503, error: 'overloaded' },
    ]);
    try {
      const env = { ATELIER_VISION_BASE_URL: model.url, ATELIER_VISION_MODEL: 'fake-vl' };
      const good = await runCli(['doctor', '--workspace', ws], { env });
      expect(good.code).toBe(0);
      expect(good.stdout).toMatch(/^ok +vision +fake-vl at .* answered a test image correctly \(“red”\)/m);
      const sent = model.requests[0]!.body as { response_format?: unknown; messages: { content: unknown }[] };
      expect(sent.response_format).toEqual({ type: 'json_object' });
      expect(JSON.stringify(sent.messages)).toContain('data:image/png;base64,');
      // Plain text instead of JSON, a wrong answer about the image, an HTTP error.
      for (const why of [/内容不是 JSON：The square is red/, /红色方块被回答为“blue”/, /HTTP 503/]) {
        const r = await runCli(['doctor', '--workspace', ws], { env });
        expect(r.code).toBe(1);
        const line = r.stdout.split('\n').find((l) => l.split(/\s+/)[1] === 'vision')!;
        expect(line).toMatch(/^FAIL +vision +fake-vl at /);
        expect(line).toMatch(why);
        expect(line).toContain('fall back to the built-in analysis');
      }
    } finally {
      await model.close();
    }
    const down = await runCli(['doctor', '--workspace', ws], {
      env: { ATELIER_VISION_BASE_URL: 'http://127.0.0.1:1/v1', ATELIER_VISION_MODEL: 'fake-vl' },
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(
      /^FAIL +vision +fake-vl at http:\/\/127\.0\.0\.1:1\/v1: 无法连接视觉模型服务/m,
    );
  });

  it('a configured chat model is really asked: an answer passes, a refused key or a bad setting fails and says so', async () => {
    const ws = path.join(await tempDir(), 'ws');
    const none = await runCli(['doctor', '--workspace', ws], { env: { ATELIER_MODEL: '' } });
    expect(none.stdout).toMatch(/^ok +model +no chat model configured/m);
    const model = await startScriptedModel([{ text: 'OK' }, { status: 401, error: 'invalid api key' }]);
    try {
      const env = {
        ATELIER_MODEL: 'fake-chat',
        ATELIER_MODEL_BASE_URL: model.url,
        ATELIER_MODEL_API_KEY: 'sk-x',
      };
      const good = await runCli(['doctor', '--workspace', ws], { env });
      expect(good.code).toBe(0);
      expect(good.stdout).toMatch(
        /^ok +model +fake-chat at http:\/\/127\.0\.0\.1:\d+\/v1 answered a test message/m,
      );
      expect(model.requests[0]!.body.model).toBe('fake-chat');
      expect(model.requests[0]!.headers.authorization).toBe('Bearer sk-x');
      const refused = await runCli(['doctor', '--workspace', ws], { env });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/^FAIL +model +模型服务 .* 拒绝了请求（HTTP 401）/m);
      // The flags `atelier serve` takes are taken here too; a bad value is a failure, not a crash.
      const flagged = await runCli(['doctor', '--workspace', ws, '--model-timeout', 'soon'], { env });
      expect(flagged.code).toBe(1);
      expect(flagged.stdout).toMatch(/^FAIL +model +.*soon/m);
    } finally {
      await model.close();
    }
  });

  it('rejects unknown options with a usage error (exit 2)', async () => {
    const r = await runCli(['doctor', '--fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: atelier doctor');
  });
});
