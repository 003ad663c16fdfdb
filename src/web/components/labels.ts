/** Words for the contract's enumerations, as people read them. */
export const ANALYSIS_STATE: Record<string, string> = {
  not_requested: 'No scans yet',
  queued: 'Queued',
  running: 'Scanning',
  available: 'Results available',
  failed: 'Scans failed',
};

export const RUN_STATUS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  partial: 'Partly completed',
  failed: 'Failed',
  inaccessible: 'Could not be read',
  cancelled: 'Cancelled',
};

export const RUN_MODE: Record<string, string> = {
  full_profile: 'Profiles',
  activity: 'Activity and company page',
};

export const PERSON_REASON: Record<string, string> = {
  not_requested: 'Not scanned',
  scan_queued: 'Queued',
  scan_in_progress: 'Scanning',
  scan_failed: 'Scan failed',
  profile_inaccessible: 'Could not be scanned',
  scan_cancelled: 'Scan cancelled',
  no_usable_analysis: 'Not enough data',
};

/** A person's status in the people table and export: analyzed, else the reason there is no analysis. */
export const PERSON_STATUS: Record<string, string> = { analyzed: 'Analyzed', ...PERSON_REASON };

export const OUTCOME: Record<string, string> = { good: 'Good', optimize: 'Optimize', unknown: 'Unknown' };

export function label(map: Record<string, string>, value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return map[value] ?? value.replace(/_/g, ' ');
}

export function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${Math.round(value)}%`;
}
