/**
 * Summarizes a V8 .cpuprofile (written by `node --cpu-prof`): the top
 * functions by self time and self time per package (node_modules package,
 * our src/, Node core, V8/native, GC, idle), optionally only for samples
 * inside a time window (V8 profile timestamps are CLOCK_MONOTONIC
 * microseconds, the clock of process.hrtime, so a window can be taken in
 * another process).
 *
 *   node --import tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--from US --to US] [--top N]
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Window {
  fromUs: number;
  toUs: number;
}

export interface Row {
  label: string;
  selfMs: number;
  /** Share of the window's sampled time, idle included. */
  pct: number;
}

export interface ProfileSummary {
  windowMs: number;
  /** Sampled time that was not idle. */
  busyMs: number;
  functions: Row[];
  packages: Row[];
}

const SPECIAL: Record<string, string> = {
  '(garbage collector)': '(gc)',
  '(idle)': '(idle)',
  '(program)': '(program: V8/native, unattributed)',
  '(root)': '(program: V8/native, unattributed)',
};

export function packageOf(frame: CallFrame): string {
  if (!frame.url) return SPECIAL[frame.functionName] ?? '(native: Node bindings, V8 builtins)';
  if (frame.url.startsWith('node:')) return 'node (core)';
  const marker = '/node_modules/';
  const at = frame.url.lastIndexOf(marker);
  if (at >= 0) {
    const [first, second] = frame.url.slice(at + marker.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (frame.url.includes('/src/')) return 'profile-scan (src/)';
  return 'other';
}

function functionLabel(frame: CallFrame): string {
  if (!frame.url) return frame.functionName || '(anonymous)';
  const file = frame.url.replace(/^file:\/\//, '');
  const at = file.lastIndexOf('/node_modules/');
  const short = at >= 0 ? file.slice(at + '/node_modules/'.length) : file.includes('/src/') ? file.slice(file.lastIndexOf('/src/') + 1) : path.basename(file);
  return `${frame.functionName || '(anonymous)'} ${short}:${frame.lineNumber + 1} [${packageOf(frame)}]`;
}

function top(totals: Map<string, number>, windowUs: number, n: number): Row[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([label, us]) => ({ label, selfMs: us / 1000, pct: windowUs > 0 ? (100 * us) / windowUs : 0 }));
}

/** Self time of each sample is the interval until the next sample. */
export function summarizeProfile(profile: CpuProfile, window: Window | null = null, n = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const self = profile.timeDeltas[i + 1] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    const frame = byId.get(profile.samples[i])!.callFrame;
    total += self;
    if (frame.functionName === '(idle)' && !frame.url) idle += self;
    const fn = functionLabel(frame);
    functions.set(fn, (functions.get(fn) ?? 0) + self);
    const pkg = packageOf(frame);
    packages.set(pkg, (packages.get(pkg) ?? 0) + self);
  }
  return {
    windowMs: total / 1000,
    busyMs: (total - idle) / 1000,
    functions: top(functions, total, n),
    packages: top(packages, total, Infinity),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const rows = (list: Row[]) => list.map((r) => `  ${r.selfMs.toFixed(0).padStart(7)} ms ${r.pct.toFixed(1).padStart(5)} %  ${r.label}`);
  return [
    `sampled ${(summary.windowMs / 1000).toFixed(2)} s, ` +
      `busy ${(summary.busyMs / 1000).toFixed(2)} s (${((100 * summary.busyMs) / Math.max(summary.windowMs, 1e-9)).toFixed(0)} %)`,
    `top ${summary.functions.length} functions by self time:`,
    ...rows(summary.functions),
    'self time by package:',
    ...rows(summary.packages),
  ].join('\n');
}

function option(args: string[], name: string): number | null {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const file = args[0];
  if (!file || file.startsWith('--')) {
    console.error('usage: node --import tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--from US --to US] [--top N]');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const from = option(args, '--from');
  const to = option(args, '--to');
  const window = from !== null && to !== null ? { fromUs: from, toUs: to } : null;
  console.log(formatSummary(summarizeProfile(profile, window, option(args, '--top') ?? 15)));
}
