/**
 * A gate on the image work (sharp: the simulator's renders, decoding and
 * previews of evidence) that this thread runs at once. A `profile-scan
 * worker` process leaves it open: its image work uses every core. `serve`'s
 * worker thread narrows it to one operation at a time, each on one libvips
 * thread (worker-thread.ts), so a large backlog drained by `serve` leaves a
 * core to its API (docs/scanning.md, "Concurrency and the pool").
 */
import sharp from 'sharp';

let limit = Number.POSITIVE_INFINITY;
let active = 0;
const waiting: Array<() => void> = [];

/** At most `operations` image operations of this thread at once, each on one libvips thread. */
export function narrowImageWork(operations: number): void {
  limit = Math.max(1, operations);
  sharp.concurrency(1);
}

/** Runs `work` (one sharp pipeline) when the gate lets it. */
export async function imageWork<T>(work: () => Promise<T>): Promise<T> {
  if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
  else active++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else active--;
  }
}
