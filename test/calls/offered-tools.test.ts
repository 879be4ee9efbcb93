/** Advice kept within the tools a conversation offers: the tools' own hint texts, fitted to each variant. */
import { describe, expect, it } from 'vitest';
import { NO_OFFERED_WAY, notOfferedResult, offeredAdvice } from '../../src/calls/offered-tools.js';
import { toolsOf } from '../../src/registry/index.js';

const reduced = new Set(toolsOf('reduced').map((t) => t.name));
const full = new Set(toolsOf('full').map((t) => t.name));
const extended = new Set(toolsOf('extended').map((t) => t.name));

describe('offeredAdvice', () => {
  it('leaves advice naming only offered tools as it is', () => {
    const hint = '用 select_layers 选择图层，或 create_layer 新建图层';
    expect(offeredAdvice(hint, extended)).toBe(hint);
    expect(offeredAdvice('至少给出一个图层名称', reduced)).toBe('至少给出一个图层名称');
  });

  it('puts an offered tool doing the same job in place of one the model lacks', () => {
    expect(offeredAdvice('用 list_all_layer_names 查看所有图层', reduced)).toBe(
      '用 get_layer_structure 查看所有图层',
    );
    expect(offeredAdvice('用 list_all_layer_names 查看所有图层', full)).toBe(
      '用 list_all_layer_names 查看所有图层',
    );
  });

  it('leaves out the alternative, parenthesis or sentence that names a tool the model lacks', () => {
    expect(offeredAdvice('用 select_layers 选择图层，或 create_layer 新建图层', reduced)).toBe(
      '用 create_layer 新建图层',
    );
    expect(offeredAdvice('先调用 create_document 新建文档，或 open_document 打开文件', full)).toBe(
      '先调用 create_document 新建文档',
    );
    expect(
      offeredAdvice(
        '请用户上传服装照片（HTTP 上传时 role=garment），或把照片放进工作区后调用 set_garment_photo 指定它',
        full,
      ),
    ).toBe('请用户上传服装照片（HTTP 上传时 role=garment）');
    expect(
      offeredAdvice(
        '还没有服装照片：请用户上传服装照片（或调用 set_garment_photo），然后调用 generate_garment_preview；type 和 color 会在预览结果中给出',
        reduced,
      ),
    ).toBe(
      '还没有服装照片：请用户上传服装照片，然后调用 generate_garment_preview；type 和 color 会在预览结果中给出',
    );
  });

  it('says the offered tools cannot do it when no advice is left', () => {
    expect(offeredAdvice('先用 select_rect、select_all 或 select_layer_pixels 建立选区', full)).toBe(
      NO_OFFERED_WAY,
    );
  });
});

describe('notOfferedResult', () => {
  it('suggests offered tools only, the one doing the same job first', () => {
    const lacked = notOfferedResult('list_all_layer_names', reduced).error;
    expect(lacked.message).toContain('不在本次对话提供的工具中');
    expect(lacked.details.closest[0]).toBe('get_layer_structure');
    const typo = notOfferedResult('rename_layers', reduced).error;
    expect(typo.message).toContain('没有名为“rename_layers”的工具');
    expect(typo.details.closest[0]).toBe('rename_layer');
    for (const r of [lacked, typo]) expect(r.details.closest.every((n) => reduced.has(n))).toBe(true);
    const long = notOfferedResult('x'.repeat(500), reduced).error;
    expect(long.message).toContain('长达 500 个字符');
    expect(long.details.closest).toEqual([]);
  });
});
