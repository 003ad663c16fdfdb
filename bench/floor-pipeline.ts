/**
 * The floor of the pipeline's throughput on these cores: an item's image work
 * and the rows it stores, and nothing else, run together as a worker runs
 * items, timed by the clock.
 *
 * Each of a drained report's people (bench/writes-alone.ts, `loadPeople`)
 * gives two items, its full profile and its activity. Per item, as a
 * `profile-scan worker` does it: the simulator's data and the evidence cards,
 * each card through the evidence pipeline (bench/image-cost.ts,
 * `openImageWork`), then the item's rows written by bare statements in a
 * transaction that rolls back (`replayItemWrites`: the claim's update, the
 * end with the item's rows). WORKER_CONCURRENCY items in flight, on as many
 * connections as a worker's scan pool has. No fair queue, no reads, no
 * checks evaluated, no analysis built, no roll-up, no fold, no heartbeat: a
 * pipeline that stores what an item stores, after the same image work run the
 * same way, has little left to save on these cores.
 *
 * With `analysis`, each person's item also does what a finish computes
 * whatever the design: the person's checks evaluated on the data collected
 * so far (the profile once the full-profile item collected it, the activity
 * once the activity item did), the analysis built from them with its
 * revision and, when the revision changed, its served text, and the stored
 * values serialized as a statement sends them (domain/profile-analysis.ts,
 * `analyzeProfile` and `analysisChange`, as scanning/finish-item.ts calls
 * them). Still no queue, no reads, no roll-up: the floor of an item's
 * inevitable work, database and JavaScript.
 *
 * What it answers: about the share of the image-work ceiling (cores × 1000 ÷
 * the image work's CPU per item, an ideal) that a design reaches here, with
 * the database on the same cores as the worker. Were it well under a target,
 * the target would be out of reach of any design that runs the image work as
 * a worker does, not only of this one. What it trades: a rolled-back
 * transaction skips its commit record, and the image work's media is written
 * to a scratch directory, so it is a floor of the work (a ceiling of the
 * throughput), not a design to copy; a cautious one, since its statements run
 * on as many connections as a worker's scan pool has (`workerPoolSizes`)
 * beside the image work, which costs PostgreSQL more per item than the
 * serial writes of bench/writes-alone.ts.
 *
 * Run by `npm run bench:pipeline` (throughput scenario, one worker process,
 * with the `images` scenario) as a child process after the drain's window:
 * `node --import tsx bench/floor-pipeline.ts <database url> <report id>
 * <postmaster pid> <people> [analysis]` prints one JSON object.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { readSetting } from '../src/config.js';
import type { CollectedActivityEvent, CollectedProfile } from '../src/domain/collected.js';
import { analysisChange, analyzeProfile, type StoredAnalysisState } from '../src/domain/profile-analysis.js';
import { workerPoolSizes } from '../src/scanning/worker.js';
import { inFlight, openImageWork, type Collected } from './image-cost.js';
import { readServer, serverTicksBetween, ticksToMs } from './pipeline-setup.js';
import { round } from './pipeline-stats.js';
import { loadPeople, replayItemWrites, type PersonItems } from './writes-alone.js';

export interface FloorPipeline {
  /** Whether each item also evaluated the person's checks and built the analysis. */
  analysis: boolean;
  /** Runs measured (1 from this file; bench:pipeline reports the mean of 2). */
  runs: number;
  people: number;
  items: number;
  in_flight: number;
  connections: number;
  seconds: number;
  /** Items per second by the clock. */
  items_per_second: number;
  /** CPU per item of this process (image work, the statements' JavaScript) and of the whole database server. */
  worker_ms_per_item: number;
  postgres_ms_per_item: number;
  /** Of the cores' time during the run, the fraction this process and the server used together. */
  cores_busy: number;
}

interface Item {
  person: PersonItems;
  which: 'analysis' | 'activity';
  url: string;
}

/** What the person's items collected so far, and the analysis last built: what a finish would read of them. */
interface PersonSoFar {
  profile: CollectedProfile | null;
  activity: CollectedActivityEvent[] | null;
  imagesBySection: Map<string, string[]>;
  stored: StoredAnalysisState | undefined;
}

/**
 * What a person's finish computes from its item's collection, whatever the
 * design (scanning/finish-item.ts, personWrites): the checks on the person's
 * data so far, the analysis, its served text when its revision changed, and
 * the values a statement would send. Returns the bytes serialized.
 */
function analyze(reportId: string, person: PersonSoFar, collected: Collected, mode: 'full_profile' | 'activity', now: Date): number {
  const { result } = collected;
  if (!result) return 0;
  // As a finish takes them: the profile of a full-profile item's observation, the stored one otherwise.
  if (mode === 'full_profile' && result.profile) person.profile = result.profile;
  if (result.activity) person.activity = result.activity;
  for (const shot of collected.shots) {
    const ids = person.imagesBySection.get(shot.section) ?? [];
    ids.push(crypto.randomUUID());
    person.imagesBySection.set(shot.section, ids);
  }
  if (!person.profile) return 0;
  const capturedAt = new Date(result.captured_at);
  const analysis = analyzeProfile({
    profile: person.profile,
    activity: person.activity,
    company: { name: 'Bench Floor', domain: 'bench-floor.example' },
    capturedAt,
    imagesBySection: person.imagesBySection,
  });
  const change = analysisChange(reportId, person.stored, analysis, now);
  let bytes = JSON.stringify(person.profile).length + JSON.stringify(analysis.findings).length;
  if (change.kind === 'analysis') {
    person.stored = { ...analysis, available_at: change.available_at, analysis_format: change.text.analysis_format };
    bytes += change.text.analysis_json.length;
  }
  return bytes;
}

export async function measureFloorPipeline(
  url: string,
  reportId: string,
  postmasterPid: number,
  people: number,
  dir: string,
  options: { analysis: boolean } = { analysis: false },
): Promise<FloorPipeline> {
  const inFlightItems = readSetting({}, 'WORKER_CONCURRENCY');
  const connections = workerPoolSizes(inFlightItems).scanPoolSize;
  const pool = new pg.Pool({ connectionString: url, max: connections, application_name: 'bench:floor-pipeline' });
  try {
    const work = await openImageWork(dir);
    const persons = await loadPeople(pool, reportId, people);
    const soFar = new Map<string, PersonSoFar>(
      persons.map((p) => [p.profile_id, { profile: null, activity: null, imagesBySection: new Map(), stored: undefined }]),
    );
    const items: Item[] = persons.flatMap((person, i) => {
      const url = `https://www.linkedin.com/in/bench-floor-${i}`;
      return [
        { person, which: 'analysis' as const, url },
        { person, which: 'activity' as const, url },
      ];
    });
    // Every connection opened and its statements prepared before the clock starts.
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    await Promise.all(clients.map((client, i) => replayItemWrites(client, persons[i % persons.length], i % 2 === 0 ? 'analysis' : 'activity')));
    for (const client of clients) client.release();

    let serialized = 0;
    const before = readServer(postmasterPid);
    const cpu = process.cpuUsage();
    const clock = performance.now();
    await inFlight(items, inFlightItems, async (item) => {
      const mode = item.which === 'analysis' ? 'full_profile' : 'activity';
      const collected = await work.collect({ url: item.url, kind: 'person', mode });
      for (const shot of collected.shots) await work.prepare(shot);
      if (options.analysis) serialized += analyze(reportId, soFar.get(item.person.profile_id)!, collected, mode, new Date());
      const client = await pool.connect();
      try {
        await replayItemWrites(client, item.person, item.which);
      } finally {
        client.release();
      }
    });
    const seconds = (performance.now() - clock) / 1000;
    const used = process.cpuUsage(cpu);
    const after = readServer(postmasterPid);
    if (!before || !after) throw new Error('floor pipeline: the server process could not be read');
    // A floor with the analysis that built none would measure nothing of it.
    if (options.analysis && serialized === 0) throw new Error('floor pipeline: no analysis was built');
    const workerMs = (used.user + used.system) / 1000;
    const postgresMs = ticksToMs(serverTicksBetween(before, after).all);
    return {
      analysis: options.analysis,
      runs: 1,
      people: persons.length,
      items: items.length,
      in_flight: inFlightItems,
      connections,
      seconds: round(seconds),
      items_per_second: round(items.length / seconds),
      worker_ms_per_item: round(workerMs / items.length),
      postgres_ms_per_item: round(postgresMs / items.length),
      cores_busy: round((workerMs + postgresMs) / 1000 / seconds / os.availableParallelism()),
    };
  } finally {
    await pool.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, reportId, pid, count, mode] = process.argv.slice(2);
  const people = Number(count ?? 500);
  if (!url || !reportId || !Number.isInteger(Number(pid)) || !Number.isInteger(people) || people < 1 || (mode !== undefined && mode !== 'analysis')) {
    throw new Error('usage: bench/floor-pipeline.ts <database url> <report id> <postmaster pid> [people ≥ 1] [analysis]');
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ps-floor-pipeline-'));
  try {
    console.log(JSON.stringify(await measureFloorPipeline(url, reportId, Number(pid), people, dir, { analysis: mode === 'analysis' })));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
