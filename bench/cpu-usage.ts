/**
 * CPU time of the benchmark's processes over a measurement window, from
 * /proc/<pid>/stat (Linux only; elsewhere nothing is reported): the service,
 * PostgreSQL (the postmaster and its children, when the bench started an
 * embedded server) and the load generator (this process). Divided by the
 * responses of the window it says where a request's CPU goes, which a CPU
 * profile of the service alone cannot (PostgreSQL and autocannon share the
 * same cores).
 */
import fs from 'node:fs';

/** Clock ticks per second of utime/stime (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface CpuGroups {
  service: () => number | null;
  postmaster: () => number | null;
}

/** CPU milliseconds per group, for one window. */
export interface CpuUsage {
  serviceMs: number | null;
  /** Of serviceMs, the time in the kernel (socket reads and writes, mostly). */
  serviceSystemMs: number | null;
  postgresMs: number | null;
  loadMs: number;
}

interface ProcStat {
  pid: number;
  ppid: number;
  ticks: number;
  systemTicks: number;
}

function readStat(pid: number | 'self'): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid: Number(text.slice(0, text.indexOf(' '))),
    ppid: Number(fields[1]),
    ticks: Number(fields[11]) + Number(fields[12]),
    systemTicks: Number(fields[12]),
  };
}

/** Ticks of `root` and of each of its children, by pid. */
function ticksOfTree(root: number): Map<number, number> | null {
  const rootStat = readStat(root);
  if (!rootStat) return null;
  const ticks = new Map([[root, rootStat.ticks]]);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.ppid === root) ticks.set(stat.pid, stat.ticks);
  }
  return ticks;
}

interface Snapshot {
  service: ProcStat | null;
  postgres: Map<number, number> | null;
  load: number;
}

function snapshot(groups: CpuGroups): Snapshot | null {
  const self = readStat('self');
  if (!self) return null;
  const service = groups.service();
  const postmaster = groups.postmaster();
  return {
    service: service === null ? null : readStat(service),
    postgres: postmaster === null ? null : ticksOfTree(postmaster),
    load: self.ticks,
  };
}

/**
 * CPU of a process tree between two snapshots: processes in both count their
 * difference, new ones all of theirs; one that exited in between (e.g. an
 * idle pooled connection closed) loses its last ticks.
 */
function treeDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks;
}

/** Starts a window; the returned function ends it. Null usage where /proc is unavailable. */
export function startCpuWindow(groups: CpuGroups): () => CpuUsage | null {
  const before = snapshot(groups);
  return () => {
    const after = snapshot(groups);
    if (!before || !after) return null;
    const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
    return {
      serviceMs: before.service === null || after.service === null ? null : ms(after.service.ticks - before.service.ticks),
      serviceSystemMs: before.service === null || after.service === null ? null : ms(after.service.systemTicks - before.service.systemTicks),
      postgresMs: before.postgres === null || after.postgres === null ? null : ms(treeDelta(before.postgres, after.postgres)),
      loadMs: ms(after.load - before.load),
    };
  };
}

/** Busy and total CPU ticks of the whole machine, all cores together, from /proc/stat (null where it is unavailable). */
export function machineTicks(): { busy: number; total: number } | null {
  let line: string;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  } catch {
    return null;
  }
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  // idle and iowait are the only fields that are not work.
  return { busy: total - fields[3] - (fields[4] ?? 0), total };
}

/** Core-seconds of `ticks` (USER_HZ ticks). */
export const coreSeconds = (ticks: number) => ticks / TICKS_PER_SECOND;
