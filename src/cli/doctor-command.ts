/** `atelier doctor`: the command's face; the checks load the engine only when they run (doctor.ts). */
import { MODEL_OPTIONS } from '../agent/config.js';
import type { Command } from './usage.js';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check that this machine can run Atelier (does a little real work end to end)',
  usage: [
    'Usage: atelier doctor [--workspace DIR] [--model NAME --model-base-url URL ...]',
    '',
    'Runs a few real tool calls in a throwaway session (compositing, Chinese text, PSD and PNG files),',
    'checks that the workspace folder (default ./atelier-workspace) is writable, and shows the configuration.',
    'A configured chat model (ATELIER_MODEL_* or the flags `atelier serve` takes) and vision model',
    '(ATELIER_VISION_*) are each sent one tiny real request.',
    'Prints one line per check; exit code 0 when all passed, 1 otherwise.',
  ].join('\n'),
  options: { workspace: { type: 'string' }, ...MODEL_OPTIONS },
  async run(values) {
    const { runDoctor } = await import('./doctor.js');
    return runDoctor(values);
  },
};
