/** `atelier doctor`: the command's face; the checks load the engine only when they run (doctor.ts). */
import type { Command } from './usage.js';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check that this machine can run Atelier (does a little real work end to end)',
  usage: [
    'Usage: atelier doctor [--workspace DIR]',
    '',
    'Runs a few real tool calls in a throwaway session (compositing, Chinese text, PSD and PNG files),',
    'checks that the workspace folder (default ./atelier-workspace) is writable, and shows the configuration.',
    'Prints one line per check; exit code 0 when all passed, 1 otherwise.',
  ].join('\n'),
  options: { workspace: { type: 'string' } },
  async run(values) {
    const { runDoctor } = await import('./doctor.js');
    return runDoctor(values);
  },
};
