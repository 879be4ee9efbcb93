/**
 * Whether the canvas shows the picture it wants: the active document as it is now. The server answers one
 * session's requests in turn, so a render asked for once a long call has started waits for that call's end. A
 * run that follows a change with a long call that changes nothing the canvas shows (verify_pattern_result after
 * extract_and_apply_all_pieces: seconds on a 150 DPI marker) waits here first, or the designer would see the
 * applied print only once the score came, long after the apply card said it was done.
 */

/** At most this long (ms) a run waits: a canvas that cannot load its picture does not hold the run up for long. */
const CATCH_UP_MS = 15_000;

let wanted = '';
let shown = '';
const waiting = new Set<() => void>();

/** The runs waiting go on. */
function release(): void {
  for (const done of waiting) done();
  waiting.clear();
}

/** Told by the canvas whenever either changes ('' for both when it shows no document). */
export function reportCanvasPicture(want: string, have: string): void {
  wanted = want;
  shown = have;
  if (wanted === shown) release();
}

/** Told by the canvas when the picture it wants could not be had: nothing will come to wait for. */
export function reportCanvasFailed(want: string): void {
  if (want === wanted) release();
}

/**
 * Until the canvas has been rendered with the state just loaded and its effects (the fetch) have run: two frames,
 * or EFFECTS_MS in a hidden tab, where frames stop and Preact runs effects after 35 ms instead.
 */
const afterEffects = () =>
  new Promise<void>((done) => {
    const timer = setTimeout(done, EFFECTS_MS);
    requestAnimationFrame(() =>
      requestAnimationFrame(() =>
        setTimeout(() => {
          clearTimeout(timer);
          done();
        }),
      ),
    );
  });
const EFFECTS_MS = 150;

/** Resolves once the canvas shows the picture of what the studio knows now, or after CATCH_UP_MS. */
export async function canvasCaughtUp(): Promise<void> {
  await afterEffects();
  if (wanted === shown) return;
  await new Promise<void>((done) => {
    const timer = setTimeout(() => {
      waiting.delete(finish);
      done();
    }, CATCH_UP_MS);
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    waiting.add(finish);
  });
}
