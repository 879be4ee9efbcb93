/**
 * What `atelier` says when it cannot start for a setting (a flag, an environment variable, a model setting), run
 * from dist/ as a designer runs it: Chinese, naming the flag or variable verbatim and what it accepts, exit 2.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkConfig, configFrom, DEFAULTS } from '../../src/server/config.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/session.js';

/** English prose, as node:util and the old messages wrote ("max sessions must be a positive number"). */
const ENGLISH_SENTENCE = /[A-Za-z]+(?:[ ,'’()-]+[A-Za-z]+){2,}/;

/** The error line, without the usage text a flag error prints after it (the help is English). */
const firstLine = (stderr: string) => stderr.split('\n')[0]!;

/** What a message says in its own words: without what it quotes, or the flags, commands and addresses it gives verbatim. */
const ownWords = (line: string) =>
  line.replace(/“[^”]*”|`[^`]*`|atelier \w+ --help|https?:\/\/\S+|"[^"]*"|--[\w-]+/g, '');

describe('atelier serve refusing a setting', () => {
  it.each([
    [
      'a bad environment value',
      [],
      { ATELIER_MAX_SESSIONS: 'abc' },
      'atelier: 环境变量 ATELIER_MAX_SESSIONS 的值“abc”无效：同时打开的会话数上限应为大于 0 的数（默认 100）',
    ],
    [
      'a bad flag value',
      ['--port', 'http'],
      {},
      'atelier: --port 的值“http”无效：端口应为 0 到 65535 的整数（0 表示任选一个空闲端口）',
    ],
    [
      'a flag over its variable',
      ['--upload-limit=-5'],
      { ATELIER_UPLOAD_LIMIT_MB: '10' },
      'atelier: --upload-limit 的值“-5”无效：单个上传的大小上限（MB）应为大于 0 的数（默认 200）',
    ],
    [
      'an unknown variant',
      [],
      { ATELIER_MCP_VARIANT: 'all' },
      'atelier: 环境变量 ATELIER_MCP_VARIANT 的值“all”无效：MCP 列出的工具集可选 reduced、full、extended（默认 extended）',
    ],
    [
      'a thread count',
      [],
      { ATELIER_SESSION_THREADS: 'many' },
      'atelier: 环境变量 ATELIER_SESSION_THREADS 的值“many”无效：会话使用的工作线程数应为不小于 1 的整数',
    ],
    [
      'a model setting',
      ['--model', 'm'],
      { ATELIER_MODEL_TIMEOUT: 'soon' },
      'atelier: 环境变量 ATELIER_MODEL_TIMEOUT 的值“soon”无效：每次模型请求的超时（秒）应为不超过 3600 的正数',
    ],
    [
      'a model service address',
      ['--model', 'm', '--model-base-url', 'api.deepseek.com'],
      {},
      'atelier: --model-base-url 的值“api.deepseek.com”不是网址：模型服务地址应为完整的网址，如 https://api.openai.com/v1',
    ],
    [
      'a short token',
      [],
      { ATELIER_TOKEN: 'abc' },
      'atelier: 环境变量 ATELIER_TOKEN 太短：至少需要 16 个字符（可用 `openssl rand -hex 32` 生成）',
    ],
    [
      'an unknown flag',
      ['--max-session', '5'],
      {},
      'atelier: 没有选项“--max-session”（运行 atelier serve --help 查看用法）',
    ],
    [
      'a flag without its value',
      ['--port'],
      {},
      'atelier: 选项 --port 缺少值（运行 atelier serve --help 查看用法）',
    ],
    [
      'a negative value read as a flag',
      ['--memory', '-5'],
      {},
      'atelier: 选项 --memory 的值以“-”开头，会被当成另一个选项：请写成 --memory=值（如 --memory=-1）',
    ],
  ] as const)(
    'exits 2 on %s, saying in Chinese which setting and what it takes',
    async (_, args, env, said) => {
      const r = await runCli(['serve', '--workspace', tempDir('atelier-startup-'), ...args], {
        env: { ATELIER_TOKEN: '', ...env },
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(firstLine(r.stderr)).toBe(said);
      expect(ownWords(firstLine(r.stderr))).not.toMatch(ENGLISH_SENTENCE);
    },
  );

  it('exits 1 on a port in use, saying so in Chinese with what to change', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await runCli(['serve', '--port', String(port), '--workspace', tempDir('atelier-startup-')], {
        env: { ATELIER_TOKEN: '' },
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(
        `atelier: 无法监听 127.0.0.1:${port}：端口已被占用：换一个端口（--port），或 --port 0 任选一个空闲端口（EADDRINUSE）\n`,
      );
    } finally {
      taken.close();
    }
  });
});

describe('configFrom', () => {
  it('names the flag when the flag gave the value, the variable when the environment did', () => {
    expect(() => configFrom({ 'max-calls': '0' }, { ATELIER_MAX_CALLS_PER_REQUEST: '5' })).toThrow(
      /^--max-calls 的值“0”无效：一个请求最多携带的工具调用数应为大于 0 的数（默认 100）$/,
    );
    expect(() => configFrom({}, { ATELIER_MAX_CALLS_PER_REQUEST: '0' })).toThrow(
      /^环境变量 ATELIER_MAX_CALLS_PER_REQUEST 的值“0”无效/,
    );
  });

  it('reads a variable trimmed and a blank one as unset, as the model settings are read', () => {
    // A value pasted with its newline, or `NAME= ` in a unit file: before, the variant was refused and the
    // workspace became a folder named by a space.
    const config = configFrom(
      {},
      { ATELIER_MCP_VARIANT: 'full\n', ATELIER_WORKSPACE: '  ', ATELIER_HOST: ' 127.0.0.1' },
    );
    expect(config).toMatchObject({ mcpVariant: 'full', workspace: DEFAULTS.workspace, host: '127.0.0.1' });
    expect(
      configFrom({}, { ATELIER_MODEL: ' gpt-4o-mini ', ATELIER_MODEL_TOOLS: 'reduced ' }).model,
    ).toMatchObject({
      model: 'gpt-4o-mini',
      tools: 'reduced',
    });
    // A flag is taken as typed: a blank port is named as such.
    expect(() => configFrom({ port: ' ' }, {})).toThrow(/^--port 的值“ ”无效/);
  });

  it('names both where a value that parsed is still no limit at all', () => {
    // 0.1 of a session rounds down to none: refused when the service checks its settings, naming both ways to set it.
    const config = configFrom({ 'max-sessions': '0.1' }, {});
    expect(() => checkConfig(config)).toThrow(
      '同时打开的会话数上限应为大于 0 的数（由 --max-sessions 或环境变量 ATELIER_MAX_SESSIONS 设置）',
    );
  });
});
