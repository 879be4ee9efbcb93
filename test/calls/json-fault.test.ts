/** Where refused JSON broke, in Chinese (src/calls/json-fault.ts), checked against V8's own parser. */
import { describe, expect, it } from 'vitest';
import { describeJsonFault, jsonFault } from '../../src/calls/json-fault.js';
import { parseArguments } from '../../src/calls/parse.js';
import { designerWorded } from '../../src/web/state/failures.js';

/** English prose: what V8's reasons are ("Expected ',' or '}' after property value in JSON at position 15"). */
const ENGLISH_SENTENCE = /[A-Za-z]+(?:[ ,'’()-]+[A-Za-z]+){2,}/;

/** Valid JSON with one to three random edits, and sometimes cut short (a model's output truncated). */
function* mutations(count: number): Generator<string> {
  const seeds = [
    '{"name":"图层 1","x":12,"y":-3.5e2,"tags":["a","b"],"on":true,"off":false,"n":null,"s":"q\\"\\u4e2d\\n"}',
    '[1,[2,{"a":[]}],{}]',
    '{"text":"夏季 😀 特卖","layers":[{"opacity":0.5}]}',
    '-0.1E+5',
  ];
  const alphabet = '{}[]:,"\\ -0123456789.eE+tfnrulsa\'\n\tx中😀u';
  let state = 7;
  const rnd = (n: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  for (let k = 0; k < count; k++) {
    let s = seeds[rnd(seeds.length)]!;
    for (let e = 1 + rnd(3); e > 0; e--) {
      const at = rnd(s.length + 1);
      const ch = alphabet[rnd(alphabet.length)]!;
      const op = rnd(3);
      s = s.slice(0, at) + (op === 1 ? '' : ch) + s.slice(op === 0 ? at : at + 1);
    }
    yield rnd(5) === 0 ? s.slice(0, rnd(s.length + 1)) : s;
  }
}

describe('jsonFault', () => {
  it('refuses exactly what JSON.parse refuses, at the offset V8 names wherever it names one', () => {
    let compared = 0;
    for (const text of mutations(40_000)) {
      let v8: string | null = null;
      try {
        JSON.parse(text);
      } catch (err) {
        v8 = (err as Error).message;
      }
      const fault = jsonFault(text);
      expect(fault === null, `${JSON.stringify(text)}: ${v8}`).toBe(v8 === null);
      if (v8 === null || fault === null) continue;
      const named = /at position (\d+)/.exec(v8);
      const at = named ? Number(named[1]) : v8.startsWith('Unexpected end') ? text.length : undefined;
      if (at === undefined) continue;
      compared++;
      expect(fault.at, `${JSON.stringify(text)}: ${v8}`).toBe(at);
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('walks any depth without recursion', () => {
    expect(jsonFault(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)).toBeNull();
    expect(jsonFault('['.repeat(200_000))).toMatchObject({ at: 200_000 });
  });
});

describe('the invalid_json message', () => {
  const messageOf = (raw: string) => {
    const parsed = parseArguments(raw);
    if (parsed.ok) throw new Error(`${raw} parsed`);
    expect(parsed.code).toBe('invalid_json');
    return parsed.message;
  };

  it('says in Chinese where the JSON broke and why, with the text around it marked, and no English sentence', () => {
    const cases: [string, string][] = [
      [
        '{"name":"图层 1" "x":1}',
        '参数不是有效的 JSON：在第 16 个字符处，属性值之后应为逗号“,”或“}”，而不是“"”。出错处：「{"name":"图层 1" ⟨此处⟩"x":1}」',
      ],
      ['{"a":1,}', '参数不是有效的 JSON：在第 8 个字符处，最后一项之后多了逗号'],
      ["{'name':'标题'}", '在第 2 个字符处，JSON 的字符串和属性名须用双引号“"”，不能用单引号'],
      ['{"text":"第一行\n第二行"}', '在第 1 行第 13 列，字符串中不能直接换行：换行须写成 \\n'],
      ['{"name":"标题","opacity":4', '在末尾，JSON 没有写完：还缺少结尾的“}”（参数可能被截断）'],
      ['{\n  "a": 1\n  "b": 2\n}', '在第 3 行第 3 列，属性值之后应为逗号“,”或“}”'],
      ['{"opacity":.5}', '在第 12 个字符处，应为一个值'],
    ];
    for (const [raw, expected] of cases) {
      const message = messageOf(raw);
      let v8 = '';
      try {
        JSON.parse(raw);
      } catch (err) {
        v8 = (err as Error).message;
      }
      expect(message, raw).toContain(expected);
      expect(message, raw).not.toContain(v8);
      expect(message, raw).not.toMatch(ENGLISH_SENTENCE);
      // The studio shows it to the designer as it is, not as "出了问题" with the text under 详细信息.
      expect(designerWorded(message), message).toBe(true);
    }
  });

  it('shows a short excerpt of a long argument text, cut at whole characters', () => {
    const raw = `{"text":"${'长'.repeat(5000)}","x":1,,"y":2${'3'.repeat(5000)}}`;
    const message = messageOf(raw);
    expect(message).toContain(`在第 ${9 + 5000 + 8 + 1} 个字符处`);
    expect(message).toMatch(/出错处：「…长+","x":1,⟨此处⟩,"y":23+…」$/);
    expect(message.length).toBeLessThan(200);
    expect(message).not.toMatch(/[\ud800-\udfff]/);
  });

  it('marks the place with line breaks made visible', () => {
    expect(describeJsonFault('[1,\n2\n3]')).toBe(
      '在第 3 行第 1 列，数组元素之后应为逗号“,”或“]”，而不是“3”。出错处：「[1,↵2↵⟨此处⟩3]」',
    );
  });
});
