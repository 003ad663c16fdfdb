/**
 * Scan run status from its items (decisions "Run status"): queued until an
 * item is claimed; running while any item is unfinished; then completed (all
 * succeeded), partial (some succeeded), inaccessible (none succeeded and all
 * were inaccessible), failed (none succeeded otherwise), or cancelled (work
 * was cancelled before finishing, e.g. the report was archived).
 */
export type ScanMode = 'full_profile' | 'activity';
export type ItemStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'inaccessible' | 'cancelled';
export type RunStatus = 'queued' | 'running' | 'completed' | 'partial' | 'failed' | 'inaccessible' | 'cancelled';
export type ItemCounts = Record<ItemStatus, number>;

export function runStatus(c: ItemCounts): RunStatus {
  const finished = c.succeeded + c.failed + c.inaccessible + c.cancelled;
  if (c.pending + c.running > 0) return c.running > 0 || finished > 0 ? 'running' : 'queued';
  if (c.cancelled > 0) return 'cancelled';
  if (c.succeeded === finished) return 'completed';
  if (c.succeeded > 0) return 'partial';
  if (c.inaccessible === finished) return 'inaccessible';
  return 'failed';
}

export function terminalReason(status: RunStatus): 'failed' | 'inaccessible' | 'cancelled' | null {
  return status === 'failed' || status === 'inaccessible' || status === 'cancelled' ? status : null;
}

export function isTerminal(status: RunStatus): boolean {
  return status !== 'queued' && status !== 'running';
}
