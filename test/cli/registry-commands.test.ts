import { describe, expect, it } from 'vitest';
import { labelsOf, toolsOf } from '../../src/registry/index.js';
import { runCli } from '../support/cli.js';

describe('atelier tools', () => {
  it('prints the full registry in OpenAI form by default', async () => {
    const r = await runCli(['tools']);
    expect(r.code).toBe(0);
    const tools = JSON.parse(r.stdout);
    expect(tools).toHaveLength(75);
    expect(tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'get_document_info',
        description: expect.any(String),
        parameters: { type: 'object', properties: {}, required: [] },
      },
    });
    expect(tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      toolsOf('full').map((t) => t.name),
    );
  });

  it('prints 14 tools for the reduced variant', async () => {
    const r = await runCli(['tools', '--variant', 'reduced']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(14);
  });

  it('prints every format and the extended variant', async () => {
    const gemini = JSON.parse((await runCli(['tools', '--format', 'gemini'])).stdout);
    expect(gemini[0].functionDeclarations).toHaveLength(75);
    const mcp = JSON.parse((await runCli(['tools', '--format', 'mcp', '--variant', 'extended'])).stdout);
    expect(mcp).toHaveLength(toolsOf('extended').length);
    expect(mcp[0].title).toBe('查看文档信息');
    const anthropic = JSON.parse((await runCli(['tools', '--format', 'anthropic'])).stdout);
    expect(anthropic[2].input_schema.required).toEqual(['name']);
    const strict = JSON.parse((await runCli(['tools', '--strict'])).stdout);
    expect(strict.every((t: { function: { strict: boolean } }) => t.function.strict)).toBe(true);
    const responses = JSON.parse((await runCli(['tools', '--format', 'responses', '--strict'])).stdout);
    expect(responses[0]).toMatchObject({ type: 'function', name: 'get_document_info', strict: true });
  });

  it('rejects an unknown variant or format with exit 2, naming the allowed values, printing nothing on stdout', async () => {
    const v = await runCli(['tools', '--variant', 'huge']);
    expect(v.code).toBe(2);
    expect(v.stdout).toBe('');
    expect(v.stderr).toContain('--variant 的值“huge”无效：可选 reduced、full、extended');
    const f = await runCli(['tools', '--format', 'xml']);
    expect(f.code).toBe(2);
    expect(f.stdout).toBe('');
    expect(f.stderr).toContain('openai、responses、anthropic、gemini、mcp');
    const s = await runCli(['tools', '--format', 'gemini', '--strict']);
    expect(s.code).toBe(2);
    expect(s.stdout).toBe('');
    const o = await runCli(['tools', '--bogus']);
    expect(o.code).toBe(2);
    expect(o.stdout).toBe('');
  });
});

describe('atelier labels', () => {
  it('prints exactly the labels of the variant', async () => {
    const full = JSON.parse((await runCli(['labels'])).stdout);
    expect(full).toEqual(labelsOf('full'));
    expect(Object.keys(full)).toHaveLength(75);
    expect(full.trim_document).toBe('自动裁切');
    const reduced = JSON.parse((await runCli(['labels', '--variant', 'reduced'])).stdout);
    expect(Object.keys(reduced)).toEqual(toolsOf('reduced').map((t) => t.name));
    const bad = await runCli(['labels', '--variant', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

describe('help and unknown commands', () => {
  it('explains usage', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/Usage: atelier <command>/);
    expect(top.stdout).toMatch(/tools/);
    const sub = await runCli(['tools', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/--variant/);
    expect(sub.stdout).toMatch(/--format/);
  });
  it('rejects an unknown command with exit 2 and the list of commands', async () => {
    const r = await runCli(['paint']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/没有命令“paint”：可用的命令有 tools、labels/);
  });
});
