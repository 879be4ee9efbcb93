/** Waits for `done`, polling every 5 ms; fails after a minute (far beyond any job the tests wait for). */
export async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
