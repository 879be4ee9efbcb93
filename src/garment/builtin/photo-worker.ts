/**
 * The photo-analysis worker thread, started by photo-thread.ts (job-thread.ts `serveJobs`). stdout is pointed at
 * stderr before the analysis code loads, so nothing printed here can corrupt `atelier mcp`'s protocol.
 */
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const { serveJobs } = await import('../../engine/job-thread.js');
const { performPhotoJob } = await import('./photo-thread.js');
serveJobs(performPhotoJob);
