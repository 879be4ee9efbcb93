/**
 * The PSD worker thread, started by psd-thread.ts: runs each job it is posted (psd-job.ts, with psd.ts's own
 * encodePsd and decodePsd) and posts back the result, transferring the bytes written (job-thread.ts `serveJobs`).
 *
 * stdout is pointed at stderr before the PSD code (and its dependencies) load, so nothing printed here can
 * corrupt `atelier mcp`'s protocol.
 */
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const { serveJobs } = await import('../job-thread.js');
const { performPsdJob, transferablesOf } = await import('./psd-job.js');
serveJobs(performPsdJob, transferablesOf);
