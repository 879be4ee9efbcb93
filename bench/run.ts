/** `npm run bench`: every benchmark, each printing its figures beside a baseline measured in the same run. */
import { benchAdjust } from './adjust.js';
import { benchCli } from './cli.js';
import { benchComposite } from './composite.js';
import { benchDispatch } from './dispatch.js';
import { benchExport } from './export.js';
import { benchGarment } from './garment.js';
import { benchHttp } from './http.js';
import { benchJob } from './job.js';
import { benchMemory } from './memory.js';
import { benchMixed } from './mixed-load.js';
import { benchSelection } from './selection.js';
import { benchServerRss } from './server-rss.js';
import { benchThreads } from './threads.js';

const suites: [string, () => Promise<string[]>][] = [
  ['dispatch', benchDispatch],
  ['memory', benchMemory],
  ['server-rss', benchServerRss],
  ['http', benchHttp],
  ['adjust', benchAdjust],
  ['selection', benchSelection],
  ['composite', benchComposite],
  ['export', benchExport],
  ['cli', benchCli],
  ['job', benchJob],
  ['mixed', benchMixed],
  ['threads', benchThreads],
  ['garment', benchGarment],
];

const only = process.argv.slice(2);
for (const [name, run] of suites) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n== ${name}`);
  for (const line of await run()) console.log(line);
}
