/**
 * A gate on the image work (sharp: the simulator's renders, decoding and
 * previews of evidence) that this thread runs at once, shared fairly among
 * the reports whose items are in flight.
 *
 * - How many at once: `serve`'s worker thread narrows the gate to one
 *   operation at a time, each on one libvips thread (worker-thread.ts), so a
 *   large backlog drained by `serve` leaves a core to its API. A `profile-scan
 *   worker` process lets twice as many run as libuv has threads
 *   (UV_THREADPOOL_SIZE: 8 when started by bin/profile-scan.js, which sets
 *   it in bin/thread-pool.js, libuv's 4 otherwise; so 16 or 8): sharp runs each operation on
 *   that pool, and a few queued there keep its threads busy while the event
 *   loop hands over the next ones (with no gate at all, every operation waited
 *   in that pool's first-come queue, for the same throughput).
 * - In what order: an operation waits in the queue of its item's report (the
 *   `share` its caller passes: the item handler hands it to the collector and
 *   to the evidence pipeline), and the gate serves the workspaces with waiting work
 *   in turn, and inside a workspace its reports in turn (the claim's order in
 *   PostgreSQL, docs/scanning.md). With 128 items of a large backlog in flight,
 *   a small report's item then waits for about one operation per workspace,
 *   not for every operation queued before it (first come first served made a
 *   small report wait behind every operation of a large backlog).
 */
import sharp from 'sharp';

/** Whose image work this is: the item's workspace and report. */
export interface ImageShare {
  workspaceId: string;
  reportId: string;
}

/** The share of work done outside any item (e.g. a glyph rendered once for every later item). */
export const NO_SHARE: ImageShare = { workspaceId: '', reportId: '' };

let limit = 2 * Math.max(1, Number(process.env.UV_THREADPOOL_SIZE) || 4);
let active = 0;

/**
 * Waiting operations: workspace → report → first come first served. Maps keep
 * insertion order; the next turn goes to the first workspace after the last
 * one served (round robin), and inside it to its first report after the last
 * one served.
 */
const waiting = new Map<string, Map<string, Array<() => void>>>();
const lastReportOf = new Map<string, string>();
let lastWorkspace: string | null = null;

/** At most `operations` image operations of this thread at once, each on one libvips thread. */
export function narrowImageWork(operations: number): void {
  limit = Math.max(1, operations);
  sharp.concurrency(1);
}

function after<K>(keys: K[], last: K | null | undefined): K {
  const at = last === null || last === undefined ? -1 : keys.indexOf(last);
  return keys[(at + 1) % keys.length];
}

/** Starts the next waiting operation, in turn; false when none waits. */
function startNext(): boolean {
  if (waiting.size === 0) return false;
  const workspaceId = after([...waiting.keys()], lastWorkspace);
  const reports = waiting.get(workspaceId)!;
  const reportId = after([...reports.keys()], lastReportOf.get(workspaceId));
  const queue = reports.get(reportId)!;
  const start = queue.shift()!;
  if (queue.length === 0) reports.delete(reportId);
  if (reports.size === 0) {
    waiting.delete(workspaceId);
    lastReportOf.delete(workspaceId);
  } else {
    lastReportOf.set(workspaceId, reportId);
  }
  lastWorkspace = workspaceId;
  start();
  return true;
}

/** Runs `work` (one sharp pipeline) when the gate lets it, in `share`'s turn. */
export async function imageWork<T>(work: () => Promise<T>, share: ImageShare = NO_SHARE): Promise<T> {
  if (active >= limit || waiting.size > 0) {
    const { workspaceId, reportId } = share;
    let reports = waiting.get(workspaceId);
    if (!reports) waiting.set(workspaceId, (reports = new Map()));
    let queue = reports.get(reportId);
    if (!queue) reports.set(reportId, (queue = []));
    await new Promise<void>((resolve) => queue.push(resolve));
    // The slot was handed over by the operation that finished (active unchanged).
  } else {
    active++;
  }
  try {
    return await work();
  } finally {
    if (!startNext()) active--;
  }
}
