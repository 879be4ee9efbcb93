import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { type ScriptedModel, startScriptedModel } from '../support/scripted-model.js';
import { tempDir } from '../support/session.js';

const KEY = 'sk-chat-test-9876543210SECRET';

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const modelEnv = (url: string) => ({
  ATELIER_MODEL: 'scripted-model',
  ATELIER_MODEL_BASE_URL: url,
  ATELIER_MODEL_API_KEY: KEY,
  ATELIER_MODEL_VISION: '',
  ATELIER_MODEL_TOOLS: '',
});

describe('atelier chat', () => {
  it('says how to configure a model and exits 2 when none is', async () => {
    const r = await runCli(['chat', '--workspace', tempDir()], {
      input: '你好\n',
      env: { ATELIER_MODEL: '', ATELIER_MODEL_BASE_URL: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('没有配置对话模型');
    expect(r.stderr).toMatch(/ATELIER_MODEL_BASE_URL=https:\/\/\S+/);
    expect(r.stderr).toMatch(/ATELIER_MODEL_BASE_URL=http:\/\/127\.0\.0\.1/);
    expect(r.stdout).toBe('');
  });

  it('refuses a bad setting with a usage error', async () => {
    const r = await runCli(['chat', '--model', 'x', '--model-tools', 'everything'], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--model-tools 的值“everything”无效');
    expect(r.stderr).toContain('reduced、full、extended');
  });

  it('runs turns from a pipe: streamed text, one card per call, image files, a transcript', async () => {
    model = await startScriptedModel([
      {
        text: '好的，我来新建文档。',
        toolCalls: [
          { name: 'create_document', arguments: { width: 240, height: 120, name: '海报' } },
          { name: 'get_canvas_image', arguments: { max_size: 64 } },
          { name: 'set_layer_opacity', arguments: { name: '不存在', opacity: 50 } },
        ],
      },
      { text: '文档建好了。' },
      (req) => ({ text: `共 ${req.body.messages.filter((m) => m.role === 'user').length} 条用户消息。` }),
    ]);
    const ws = tempDir();
    const r = await runCli(['chat', '--workspace', ws], {
      input: '新建一个海报\n\n现在怎样了\n',
      env: modelEnv(model.url),
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('好的，我来新建文档。');
    expect(lines).toContain('[新建文档] create_document {"width":240,"height":120,"name":"海报"} ✓');
    expect(lines).toContain('[查看画布] get_canvas_image {"max_size":64} ✓');
    const failed = lines.find((l) => l.startsWith('[设置透明度] set_layer_opacity'));
    expect(failed).toMatch(/✗ .*不存在.*（.+）$/);
    const image = lines.find((l) => l.startsWith('  图像：'))!.slice('  图像：'.length);
    expect(image.startsWith(join(ws, 'chat-images'))).toBe(true);
    expect(readFileSync(image).subarray(1, 4).toString()).toBe('PNG');
    expect(lines).toContain('文档建好了。');
    // The second line is a second turn of the same conversation (the empty line is no message).
    expect(lines).toContain('共 2 条用户消息。');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);

    const transcript = readFileSync(join(ws, 'chat.jsonl'), 'utf8');
    expect(
      transcript
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).role ?? JSON.parse(l).event),
    ).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'assistant',
      'done',
      'user',
      'assistant',
      'done',
    ]);
    for (const text of [r.stdout, r.stderr, transcript]) expect(text).not.toContain(KEY.slice(-10));
  });

  it('ends a turn that the model refuses with the Chinese message on stderr and exit code 1', async () => {
    model = await startScriptedModel([
      (req) => ({ status: 401, error: `bad key ${String(req.headers.authorization)}` }),
    ]);
    const r = await runCli(['chat', '--workspace', tempDir()], { input: '你好\n', env: modelEnv(model.url) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ATELIER_MODEL_API_KEY');
    expect(r.stderr).toContain('401');
    expect(r.stdout + r.stderr).not.toContain(KEY.slice(-10));
  });

  it('cancels the running turn on Ctrl-C and goes on with the next line', async () => {
    model = await startScriptedModel([
      { toolCalls: [{ name: 'create_document', arguments: { width: 10, height: 10 } }], delayMs: 20_000 },
      { text: '第二轮好了。' },
    ]);
    const ws = tempDir();
    const child = spawn(process.execPath, [BIN, 'chat', '--workspace', ws], {
      env: { ...process.env, ...modelEnv(model.url) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('慢慢新建一个\n');
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    while (!stderr.includes('已取消')) await new Promise((r) => setTimeout(r, 20));
    child.stdin.end('再来一次\n');
    expect(await closed).toBe(0);
    expect(stderr).toContain('正在取消本轮');
    expect(stdout).toContain('第二轮好了。');
    expect(stdout).not.toContain('[新建文档]');
    expect(existsSync(join(ws, 'chat.jsonl'))).toBe(true);
    expect(readFileSync(join(ws, 'chat.jsonl'), 'utf8')).toContain('"code":"cancelled"');
  });
});
