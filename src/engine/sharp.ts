/**
 * sharp, set up once for every module that uses it: on glibc without jemalloc sharp defaults to one thread
 * (engine.md §2.1), so its thread pool is set to two here.
 */
import sharp from 'sharp';

sharp.concurrency(2);

export default sharp;
