/**
 * The read and write commands of `profile-scan client` other than import and
 * mirror: context, list, create, watch, summary, export, evidence. Each
 * prints people-readable text, or one JSON document with --json.
 */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { isTerminal, type ActivityEvent, type FindingsRecord, type ProfileScanClient, type Scan } from '../index.js';
import type { CommandContext } from './client-context.js';
import { seconds } from './client-context.js';
import { EXIT, UsageError, keyValues, progressBar, table } from './client-output.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuidArg(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  if (!UUID.test(value)) throw new UsageError(`${what} must be a UUID`);
  return value.toLowerCase();
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

function noMoreArgs(args: string[], expected: number): void {
  if (args.length > expected) throw new UsageError(`unexpected argument "${args[expected]}"`);
}

/** Writes to `file` through a temporary file renamed at the end (no half-written output), or to stdout. */
async function writeOutput(ctx: CommandContext, file: string | undefined, produce: (sink: NodeJS.WritableStream) => Promise<void>): Promise<void> {
  if (!file) {
    await produce(ctx.io.stdout);
    return;
  }
  const target = path.resolve(file);
  const tmp = `${target}.${process.pid}.part`;
  try {
    const stream = createWriteStream(tmp);
    await produce(stream);
    await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    await fs.rename(tmp, target);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}

export async function runContext(ctx: CommandContext): Promise<number> {
  noMoreArgs(ctx.args, 0);
  const context = await ctx.client.context();
  ctx.out.result(context);
  ctx.out.say(
    keyValues([
      ['service', ctx.baseUrl],
      ['key_id', context.key_id],
      ['workspace_id', context.workspace_id],
      ['scopes', context.scopes.join(' ')],
      ...Object.entries(context.limits).map(([k, v]) => [k, v] as [string, number]),
    ]),
  );
  return EXIT.ok;
}

export async function runList(ctx: CommandContext): Promise<number> {
  noMoreArgs(ctx.args, 0);
  const limit = ctx.values.limit === undefined ? 50 : Number(ctx.values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit takes 1-100 (the page size)');
  const reports = [];
  for await (const report of ctx.client.reports.list({
    limit,
    company_root_domain: ctx.values.domain,
    include_archived: ctx.values['include-archived'],
  })) {
    reports.push(report);
  }
  ctx.out.result({ reports });
  ctx.out.say(
    reports.length === 0
      ? 'No reports.'
      : table(
          ['id', 'name', 'company', 'root_domain', 'people', 'analyzed', 'analysis_state', 'created_at'],
          reports.map((r) => [
            r.id,
            r.name,
            r.company.name,
            r.company.root_domain,
            r.profile_count,
            r.analyzed_profile_count,
            r.analysis_state + (r.archived ? ' (archived)' : ''),
            r.created_at,
          ]),
        ),
  );
  return EXIT.ok;
}

export async function runCreate(ctx: CommandContext): Promise<number> {
  noMoreArgs(ctx.args, 0);
  const v = ctx.values;
  const result = await ctx.client.reports.create(
    {
      name: required(v.name, '--name'),
      company: {
        name: required(v.company, '--company'),
        domain: required(v.domain, '--domain'),
        pronet_company_url: required(v['company-url'], '--company-url'),
      },
      visibility: v.public ? 'public' : 'private',
      on_existing: v['return-existing'] ? 'return_existing' : 'create',
    },
    { idempotencyKey: v['idempotency-key'] },
  );
  ctx.out.result(result);
  if (result.data.outcome === 'created') {
    ctx.out.say(
      `Created report ${result.data.report.id} (${result.data.report.name})${result.replayed ? ' [replayed: created earlier with this idempotency key]' : ''}.`,
    );
    ctx.out.say(`Next: profile-scan client import ${result.data.report.id} people.csv`);
  } else {
    ctx.out.say('Existing reports for this company (nothing was created):');
    ctx.out.say(
      table(
        ['id', 'name', 'archived', 'created_at'],
        result.data.existing_reports.map((r) => [r.id, r.name, r.archived, r.created_at]),
      ),
    );
  }
  return EXIT.ok;
}

export async function runRefresh(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  noMoreArgs(ctx.args, 1);
  const ids = ctx.values['profile-id']?.split(',').map((id) => uuidArg(id.trim(), '--profile-id'));
  const result = await ctx.client.refreshes.create(reportId, ids ? { profile_ids: ids } : {}, { idempotencyKey: ctx.values['idempotency-key'] });
  ctx.out.result(result);
  const { people_queued: queued, people_requested: requested } = result.data;
  ctx.out.say(
    `Scans queued for ${queued} of ${requested} people${requested > queued ? ` (${requested - queued} already waiting)` : ''}` +
      `${result.replayed ? ' [replayed: started earlier with this idempotency key]' : ''}.`,
  );
  ctx.out.say(`Next: profile-scan client watch ${reportId} ${result.data.scan_requests.map((s) => `--scan ${s.scan_run_id}`).join(' ')}`);
  return EXIT.ok;
}

function scanLabel(scans: Scan[]): string {
  return scans.map((s) => `${s.mode} ${s.status}`).join(' · ');
}

export async function runWatch(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  noMoreArgs(ctx.args, 1);
  const interval = seconds(ctx.values.interval, '--interval', 2, 600);
  const timeout = ctx.values.timeout === undefined ? undefined : seconds(ctx.values.timeout, '--timeout', 0);
  const ids = (ctx.values.scan ?? []).map((id) => uuidArg(id, '--scan'));
  if (ids.length === 0) ids.push(...(await ctx.client.analysis.summary(reportId)).work.scan_run_ids);
  if (ids.length === 0) {
    ctx.out.result({ report_id: reportId, scans: [], all_terminal: true, all_succeeded: true });
    ctx.out.say('No scans were requested for this report.');
    return EXIT.ok;
  }
  const bar = progressBar(ctx.io, !ctx.out.json);
  const scans = await ctx.client.scans
    .wait(reportId, ids, {
      intervalMs: interval * 1000,
      maxIntervalMs: Math.max(interval * 1000, 10_000),
      timeoutMs: timeout === undefined ? undefined : timeout * 1000,
      onUpdate: (current) => {
        const total = current.reduce((n, s) => n + s.counts.requested, 0);
        const done = current.reduce((n, s) => n + s.counts.completed + s.counts.failed, 0);
        bar.update(done, total, scanLabel(current));
      },
    })
    .finally(() => bar.done());
  const allSucceeded = scans.every((s) => s.status === 'completed');
  ctx.out.result({ report_id: reportId, scans, all_terminal: scans.every(isTerminal), all_succeeded: allSucceeded });
  ctx.out.say(
    table(
      ['scan', 'mode', 'status', 'requested', 'completed', 'warnings', 'failed'],
      scans.map((s) => [s.id, s.mode, s.status, s.counts.requested, s.counts.completed, s.counts.warnings, s.counts.failed]),
    ),
  );
  ctx.out.say(
    allSucceeded ? 'All scans completed.' : 'All scans are terminal; some items did not succeed (a scan failure is never a reason to create more work).',
  );
  return EXIT.ok;
}

export async function runSummary(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  noMoreArgs(ctx.args, 1);
  const s = await ctx.client.analysis.summary(reportId);
  ctx.out.result(s);
  if (ctx.out.json) return EXIT.ok;
  const pct = (v: number | null) => (v === null ? null : `${Math.round(v * 10) / 10}%`);
  const o = s.optimization_summary;
  ctx.out.say(
    keyValues([
      ['report', `${s.report.name} (${s.report.id})${s.report.archived ? ' [archived]' : ''}`],
      ['company', `${s.report.company.name} · ${s.report.company.domain}`],
      ['availability', `${s.availability}${s.has_usable_results ? '' : ' (no usable results yet)'}`],
      [
        'work',
        `${s.work.state}: ${s.work.counts.succeeded} succeeded, ${s.work.counts.queued} queued, ` +
          `${s.work.counts.processing} processing, ${s.work.counts.failed} failed, ${s.work.counts.inaccessible} inaccessible of ${s.work.counts.requested}`,
      ],
      ['freshness', `${s.freshness.state}${s.freshness.reasons.length ? ` (${s.freshness.reasons.join(', ')})` : ''}`],
      [
        'people',
        `${s.coverage.person_profiles} on the roster, ${s.coverage.optimization.analyzed_profiles} analyzed, ` +
          `${s.coverage.optimization.profiles_without_usable_analysis} without usable analysis`,
      ],
      [
        'activity',
        `${s.coverage.activity.observed_person_profiles} people observed, ` +
          `company page ${s.coverage.activity.company_page_observed ? 'observed' : 'not observed'}`,
      ],
      ['checks', `${o.counts.good} good, ${o.counts.optimize} optimize, ${o.counts.unknown} unknown; score ${pct(o.counts.score_pct) ?? '—'}`],
      ['evaluated_at', s.evaluated_at],
    ]),
  );
  if (o.categories.length > 0) {
    ctx.out.say('');
    ctx.out.say(
      table(
        ['category', 'good', 'optimize', 'answered', 'score'],
        o.categories.map((c) => [c.key, c.good, c.optimize, c.answered, pct(c.score_pct)]),
      ),
    );
  }
  if (s.limitations.length > 0) {
    ctx.out.say('');
    ctx.out.say(
      table(
        ['limitation', 'message'],
        s.limitations.map((l) => [l.code, l.message]),
      ),
    );
  }
  return EXIT.ok;
}

const FINDINGS_COLUMNS = [
  'profile_id',
  'pronet_url',
  'name',
  'title',
  'headline',
  'record_revision',
  'reason',
  'captured_at',
  'check_key',
  'check_title',
  'category',
  'outcome',
  'observed_value',
  'recommendation',
  'source_url',
  'evidence_urls',
];
const ACTIVITY_COLUMNS = [
  'id',
  'profile_id',
  'event_type',
  'actor_kind',
  'actor_url',
  'actor_name',
  'source_url',
  'text',
  'occurred_at',
  'reactions',
  'comments',
  'reposts',
  'provenance',
  'captured_at',
  'available_at',
  'updated_at',
  'revision',
];

/** CSV rows of one findings record: one per check; a person without analysis is one row with its reason. */
export function findingsRows(record: FindingsRecord): (string | number | boolean | null)[][] {
  const person = [
    record.profile_id,
    record.pronet_url,
    record.name,
    record.title,
    record.headline,
    record.revision,
    record.reason,
    record.analysis?.captured_at ?? null,
  ];
  if (!record.analysis || record.analysis.checks.length === 0) return [[...person, null, null, null, null, null, null, null, null]];
  return record.analysis.checks.map((c) => [
    ...person,
    c.key,
    c.title,
    c.category.key,
    c.outcome,
    c.observed_value,
    c.recommendation,
    c.source_url,
    c.evidence.images.map((i) => i.url).join(' '),
  ]);
}

export function activityRow(e: ActivityEvent): (string | number | null)[] {
  return [
    e.id,
    e.profile_id,
    e.event_type,
    e.actor.kind,
    e.actor.url,
    e.actor.name,
    e.source_url,
    e.text,
    e.occurred_at,
    e.counts.reactions,
    e.counts.comments,
    e.counts.reposts,
    e.provenance,
    e.captured_at,
    e.available_at,
    e.updated_at,
    e.revision,
  ];
}

export async function runExport(ctx: CommandContext): Promise<number> {
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  const collection = ctx.args[1];
  if (collection !== 'findings' && collection !== 'activity') throw new UsageError('export takes "findings" or "activity" after REPORT_ID');
  noMoreArgs(ctx.args, 2);
  const v = ctx.values;
  const file = v.output;
  const format = v.format ?? (file && /\.jsonl$|\.ndjson$/i.test(file) ? 'jsonl' : 'csv');
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format takes csv or jsonl');
  if (collection === 'findings' && (v['event-type'] || v.from || v.to)) throw new UsageError('--event-type, --from and --to filter activity only');
  const profileId = v['profile-id'] === undefined ? undefined : uuidArg(v['profile-id'], '--profile-id');

  // One complete traversal at one revision (4.13): the export never mixes two states.
  const traversal =
    collection === 'findings'
      ? await ctx.client.analysis.traverse(reportId, 'profiles', { limit: 25, profile_id: profileId }, { maxAttempts: 5 })
      : await ctx.client.analysis.traverse(
          reportId,
          'activity',
          {
            limit: 100,
            profile_id: profileId,
            event_type: v['event-type'] as ActivityEvent['event_type'] as never,
            occurred_from: v.from,
            occurred_to: v.to,
          },
          { maxAttempts: 5 },
        );
  let rows = 0;
  await writeOutput(ctx, file, async (sink) => {
    if (format === 'jsonl') {
      for (const record of traversal.records) {
        if (!sink.write(`${JSON.stringify(record)}\n`)) await new Promise((r) => sink.once('drain', r));
        rows++;
      }
      return;
    }
    const csv = stringify({
      header: true,
      columns: collection === 'findings' ? FINDINGS_COLUMNS : ACTIVITY_COLUMNS,
      cast: { boolean: (b) => String(b) },
    });
    const finished = new Promise<void>((resolve, reject) => csv.on('end', resolve).on('error', reject));
    // `end: false`: stdout stays open after the export.
    csv.pipe(sink, { end: false });
    for (const record of traversal.records) {
      const lines = collection === 'findings' ? findingsRows(record as FindingsRecord) : [activityRow(record as ActivityEvent)];
      for (const line of lines) {
        rows++;
        if (!csv.write(line.map((c) => (c === null ? '' : c)))) await once(csv, 'drain');
      }
    }
    csv.end();
    await finished;
  });
  const summary = {
    report_id: reportId,
    collection,
    format,
    output: file ? path.resolve(file) : null,
    records: traversal.records.length,
    rows,
    revision: traversal.revision,
    traversals: traversal.attempts,
  };
  if (file) {
    ctx.out.result(summary);
    ctx.out.say(
      `Wrote ${traversal.records.length} ${collection === 'findings' ? 'findings records' : 'activity events'} ` +
        `(${rows} ${format === 'csv' ? 'CSV rows' : 'lines'}) at revision ${traversal.revision} to ${file}.`,
    );
  } else if (!ctx.out.json) {
    ctx.out.note(`${traversal.records.length} records at revision ${traversal.revision}.`);
  }
  return EXIT.ok;
}

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/** Streams one evidence image to `file` (through a temporary file); resolves the bytes written. */
export async function downloadTo(
  client: ProfileScanClient,
  url: string,
  file: (contentType: string) => string,
): Promise<{ file: string; bytes: number; content_type: string }> {
  const download = await client.evidence.download(url);
  const target = file(download.content_type);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.part`;
  let bytes = 0;
  try {
    const counter = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(download.body), counter, createWriteStream(tmp));
    if (download.content_length !== null && bytes !== download.content_length)
      throw new Error(`evidence download truncated (${bytes} of ${download.content_length} bytes)`);
    await fs.rename(tmp, target);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
  return { file: target, bytes, content_type: download.content_type };
}

export interface EvidenceImageRef {
  profile_id: string;
  check_key: string;
  image_id: string;
  url: string;
}

/** Every evidence image of the findings records, once per image and variant. */
export function evidenceImages(records: Iterable<FindingsRecord>, variant: 'original' | 'preview'): EvidenceImageRef[] {
  const seen = new Map<string, EvidenceImageRef>();
  for (const record of records) {
    for (const check of record.analysis?.checks ?? []) {
      for (const image of check.evidence.images) {
        const url = variant === 'preview' ? image.preview_url : image.url;
        const imageId = /\/evidence\/([0-9a-f-]{36})/i.exec(image.url)?.[1] ?? url;
        if (!seen.has(url)) seen.set(url, { profile_id: record.profile_id, check_key: check.key, image_id: imageId, url });
      }
    }
  }
  return [...seen.values()];
}

/** Downloads the images not yet in `dir` (DIR/<profile_id>/<image_id>[.preview].<ext>); returns what it did. */
export async function syncEvidence(client: ProfileScanClient, dir: string, images: EvidenceImageRef[], variant: 'original' | 'preview') {
  let downloaded = 0;
  let skipped = 0;
  let bytes = 0;
  const files: (EvidenceImageRef & { file: string })[] = [];
  for (const image of images) {
    const folder = path.join(dir, image.profile_id);
    const stem = `${image.image_id}${variant === 'preview' ? '.preview' : ''}`;
    const existing = (await fs.readdir(folder).catch(() => [] as string[])).find((f) => f.startsWith(`${stem}.`) && !f.endsWith('.part'));
    if (existing) {
      skipped++;
      files.push({ ...image, file: path.join(folder, existing) });
      continue;
    }
    const done = await downloadTo(client, image.url, (type) => path.join(folder, `${stem}.${EXTENSIONS[type] ?? 'bin'}`));
    downloaded++;
    bytes += done.bytes;
    files.push({ ...image, file: done.file });
  }
  return { downloaded, skipped, bytes, files };
}

export async function runEvidence(ctx: CommandContext): Promise<number> {
  const v = ctx.values;
  const variant = v.variant ?? 'original';
  if (variant !== 'original' && variant !== 'preview') throw new UsageError('--variant takes original or preview');
  if (v.url !== undefined) {
    noMoreArgs(ctx.args, 0);
    const output = required(v.output, '--output (with --url)');
    if (v.dir || v['profile-id']) throw new UsageError('--url downloads one image to --output; --dir and --profile-id need REPORT_ID instead');
    const done = await downloadTo(ctx.client, v.url, () => path.resolve(output));
    ctx.out.result(done);
    ctx.out.say(`Wrote ${done.bytes} bytes (${done.content_type}) to ${done.file}.`);
    return EXIT.ok;
  }
  const reportId = uuidArg(ctx.args[0], 'REPORT_ID');
  noMoreArgs(ctx.args, 1);
  const dir = path.resolve(required(v.dir, '--dir'));
  const profileId = v['profile-id'] === undefined ? undefined : uuidArg(v['profile-id'], '--profile-id');
  const { records, revision } = await ctx.client.analysis.traverse(reportId, 'profiles', { limit: 25, profile_id: profileId }, { maxAttempts: 5 });
  const images = evidenceImages(records, variant);
  const result = await syncEvidence(ctx.client, dir, images, variant);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, 'evidence.json'),
    `${JSON.stringify(
      result.files.map((f) => ({ ...f, file: path.relative(dir, f.file) })),
      null,
      2,
    )}\n`,
  );
  ctx.out.result({
    report_id: reportId,
    dir,
    revision,
    images: images.length,
    downloaded: result.downloaded,
    skipped: result.skipped,
    bytes: result.bytes,
  });
  ctx.out.say(
    `${images.length} evidence images: ${result.downloaded} downloaded (${result.bytes} bytes), ` +
      `${result.skipped} already present, in ${dir} (index: evidence.json).`,
  );
  return EXIT.ok;
}
