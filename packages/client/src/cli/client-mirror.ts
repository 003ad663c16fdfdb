/**
 * `profile-scan client mirror REPORT_ID --dir DIR`: a local copy of a
 * report's analysis, kept in step with the reconciliation procedure (4.13,
 * src/client/reconcile.ts). Each run reads the summary and traverses only the
 * collections whose revision changed, so a run with no change costs one read.
 *
 * DIR/mirror.json     report id and the saved revision and filter of each collection
 * DIR/summary.json    the summary read by the last run
 * DIR/findings.jsonl  findings records, one per line, ordered by profile_id
 * DIR/activity.jsonl  activity events, ordered by id
 * DIR/evidence/       with --evidence: images of the saved findings (downloaded once)
 *
 * A collection file is replaced (write to a temporary file, rename) only
 * after a complete traversal, before mirror.json records its revision: a run
 * interrupted in between leaves an older revision in mirror.json, so the next
 * run traverses again. An incomplete traversal leaves the files as they were.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { deserializeState, reconcile, type ActivityEvent, type CollectionOutcome, type FindingsRecord, type LocalState } from '../index.js';
import type { CommandContext } from './client-context.js';
import { evidenceImages, syncEvidence, uuidArg } from './client-commands.js';
import { EXIT, UsageError, table } from './client-output.js';

interface MirrorFile {
  format: 1;
  report_id: string;
  profiles: { revision: string | null; filter: string };
  activity: { revision: string | null; filter: string };
}

const FILES = { profiles: 'findings.jsonl', activity: 'activity.jsonl' } as const;

async function readJsonl<T>(file: string): Promise<T[] | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
}

async function loadState(dir: string, reportId: string): Promise<LocalState> {
  let saved: MirrorFile | null = null;
  try {
    saved = JSON.parse(await fs.readFile(path.join(dir, 'mirror.json'), 'utf8')) as MirrorFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`${path.join(dir, 'mirror.json')} is unreadable: ${(error as Error).message}`);
  }
  if (saved && saved.report_id !== reportId) throw new UsageError(`${dir} mirrors report ${saved.report_id}; use another --dir`);
  const findings = await readJsonl<FindingsRecord>(path.join(dir, FILES.profiles));
  const activity = await readJsonl<ActivityEvent>(path.join(dir, FILES.activity));
  return deserializeState({
    // A missing file means no saved copy, whatever mirror.json says.
    profiles: {
      revision: findings && saved ? saved.profiles.revision : null,
      filter: saved?.profiles.filter ?? '',
      records: findings ?? [],
    },
    activity: {
      revision: activity && saved ? saved.activity.revision : null,
      filter: saved?.activity.filter ?? '',
      records: activity ?? [],
    },
  });
}

function lines<R>(records: ReadonlyMap<string, R>): string {
  return [...records.keys()]
    .sort()
    .map((k) => `${JSON.stringify(records.get(k))}\n`)
    .join('');
}

function describe(name: string, out: CollectionOutcome): (string | number | null)[] {
  const changes = out.changes ? `+${out.changes.added} ~${out.changes.updated} -${out.changes.removed}` : null;
  return [name, out.status, out.records, out.pages, changes, out.failure ? `${out.failure.kind}: ${out.failure.message}` : null];
}

export async function runMirror(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  if (ctx.args.length > 1) throw new UsageError(`unexpected argument "${ctx.args[1]}"`);
  if (!ctx.values.dir) throw new UsageError('--dir is required');
  const dir = path.resolve(ctx.values.dir);
  await fs.mkdir(dir, { recursive: true });

  const state = await loadState(dir, reportId);
  const result = await reconcile(ctx.client, reportId, state);

  for (const collection of ['profiles', 'activity'] as const) {
    if (result[collection].status === 'replaced')
      await writeAtomically(path.join(dir, FILES[collection]), lines(state[collection].records as ReadonlyMap<string, unknown>));
  }
  const mirror: MirrorFile = {
    format: 1,
    report_id: reportId,
    profiles: { revision: state.profiles.revision, filter: state.profiles.filter },
    activity: { revision: state.activity.revision, filter: state.activity.filter },
  };
  await writeAtomically(path.join(dir, 'mirror.json'), `${JSON.stringify(mirror, null, 2)}\n`);
  if (result.summary) await writeAtomically(path.join(dir, 'summary.json'), `${JSON.stringify(result.summary, null, 2)}\n`);

  let evidence: Awaited<ReturnType<typeof syncEvidence>> | null = null;
  if (ctx.values.evidence) {
    evidence = await syncEvidence(ctx.client, path.join(dir, 'evidence'), evidenceImages(state.profiles.records.values(), 'original'), 'original');
  }

  const summary = result.summary;
  ctx.out.result({
    report_id: reportId,
    dir,
    requests: ctx.requests(),
    summary: summary && {
      availability: summary.availability,
      work_state: summary.work.state,
      all_requested_work_terminal: summary.work.all_requested_work_terminal,
      results_revision: summary.results_revision,
    },
    profiles: result.profiles,
    activity: result.activity,
    ...(evidence ? { evidence: { downloaded: evidence.downloaded, skipped: evidence.skipped, bytes: evidence.bytes } } : {}),
  });
  ctx.out.say(
    table(['collection', 'status', 'records', 'pages', 'changes', 'failure'], [describe('findings', result.profiles), describe('activity', result.activity)]),
  );
  if (evidence) ctx.out.say(`evidence: ${evidence.downloaded} downloaded, ${evidence.skipped} already present`);
  ctx.out.say(
    `${ctx.requests()} request${ctx.requests() === 1 ? '' : 's'}; ` +
      (summary
        ? `work ${summary.work.state}` +
          (summary.work.all_requested_work_terminal ? '' : ' (run mirror again later: about every 30 s while work is outstanding)')
        : 'the summary could not be read') +
      `. Files in ${dir}.`,
  );

  const failure = result.profiles.failure ?? result.activity.failure;
  if (!failure) return EXIT.ok;
  return failure.kind === 'rate_limited' ? EXIT.rateLimited : failure.kind === 'network' ? EXIT.connection : EXIT.api;
}
