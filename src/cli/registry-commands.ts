/** `atelier tools` and `atelier labels`: the registry as JSON. */
import { exportTools, formats, strictFormats } from '../registry/formats/index.js';
import { labelsOf, toolsOf, variants } from '../registry/index.js';
import { type Command, oneOf, UsageError } from './usage.js';

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export const toolsCommand: Command = {
  name: 'tools',
  summary: 'print the tool definitions as JSON for a model API',
  usage: [
    `Usage: atelier tools [--variant ${variants.join('|')}] [--format ${formats.join('|')}] [--strict]`,
    '',
    'Prints the tool definitions as JSON for the chosen model API.',
    `  --variant  ${variants.join(' | ')}  (default: full)`,
    `  --format   ${formats.join(' | ')}  (default: openai)`,
    `  --strict   OpenAI strict mode (only with --format ${strictFormats.join(' or ')})`,
  ].join('\n'),
  options: { variant: { type: 'string' }, format: { type: 'string' }, strict: { type: 'boolean' } },
  run(values) {
    const variant = oneOf('variant', values.variant, variants, 'full');
    const format = oneOf('format', values.format, formats, 'openai');
    const strict = Boolean(values.strict);
    if (strict && !strictFormats.includes(format)) {
      throw new UsageError(`--strict 只适用于 --format ${strictFormats.join(' 或 ')}，不适用于 ${format}`);
    }
    printJson(exportTools(toolsOf(variant), format, { strict }));
    return 0;
  },
};

export const labelsCommand: Command = {
  name: 'labels',
  summary: 'print the tool name → Chinese label map as JSON',
  usage: [
    'Usage: atelier labels [--variant reduced|full|extended]',
    '',
    'Prints the map from tool name to its Chinese display label.',
    `  --variant  ${variants.join(' | ')}  (default: full)`,
  ].join('\n'),
  options: { variant: { type: 'string' } },
  run(values) {
    printJson(labelsOf(oneOf('variant', values.variant, variants, 'full')));
    return 0;
  },
};
