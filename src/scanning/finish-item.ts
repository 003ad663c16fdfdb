/**
 * The end of a collected item. A person's item (nearly every item) reads, in
 * one statement, what is stored of the person (readFinishFacts); builds its
 * writes (evidence images, activity, billed records); takes the person's
 * facts as those writes leave them (finishFacts), evaluates their checks
 * (domain/profile-analysis.ts); and hands every write and the person's facts
 * as they will stand to the one statement that ends the item, records the
 * person's roll-up delta, and writes only if no one changed the person since
 * the read (queue/finish.ts, endPersonItem); when someone did, it
 * reads and decides again. The company page's item does the same with
 * what it reads of the company page (readCompanyFinish, endCompanyItem):
 * its contribution is recomputed by the fold. Nothing is written when the
 * claim no longer holds the item ('skipped').
 */
import type { CollectResult } from '../domain/collected.js';
import { withActivityObservation } from '../domain/activity-observation.js';
import { analysisFacts } from '../domain/analysis-aggregate.js';
import { analysisChange, analyzeProfile } from '../domain/profile-analysis.js';
import { historyScan, historyWrite, type HistoryScan } from '../store/history-repository.js';
import {
  activityWrites,
  analysisWrites,
  companyWrite,
  evidenceWrites,
  readCompanyFinish,
  readFinishFacts,
  type CompanyFinishRead,
  type FinishRead,
  type EvidenceToStore,
} from '../store/analysis-repository.js';
import { finishFacts } from '../domain/finish-facts.js';
import type { Db } from '../store/database.js';
import { endCompanyItem, endPersonItem, type CompanyItemEnd, type ItemEnd, type PersonItemEnd } from '../queue/finish.js';
import { type AnalysisInputs, type ClaimedItem, type ItemOutcome } from '../queue/item.js';
import { checkMediaGeneration } from '../store/maintenance-repository.js';
import { itemExists, queueBlobDeletions } from '../store/erasure-repository.js';
import type { GatheredPerson } from '../domain/finish-facts.js';
import { providerUsageWrite } from '../store/provider-usage-repository.js';
import { gateHolds } from '../store/one-statement.js';

export type Finish =
  | { item: ClaimedItem; inputs: AnalysisInputs; outcome: 'inaccessible'; reason: string }
  | {
      item: ClaimedItem;
      inputs: AnalysisInputs;
      outcome: 'succeeded';
      result: Extract<CollectResult, { outcome: 'ok' }>;
      evidence: EvidenceToStore[];
      /** The media collection generation read before the evidence blobs were stored (maintenance-repository.ts). */
      mediaGeneration?: number;
      /** The collector's name: its billed records (`result.billed_records`) are counted for the item's workspace under it. */
      provider?: string;
    };

/** How many times a finish reads the person (or the company page) again when someone changed them meanwhile, before it gives up (an error: the item is retried). */
export const MAX_FINISH_READS = 10;

export async function finishItem(db: Db, given: Finish, now: Date): Promise<ItemOutcome | 'skipped'> {
  // Activity that was not positively observed is stored as not observed (null), with the item's gap: never as an empty list.
  const finish: Finish = given.outcome === 'succeeded' ? { ...given, result: withActivityObservation(given.result, given.item) } : given;
  const { item } = finish;
  const end: ItemEnd =
    finish.outcome === 'inaccessible'
      ? { status: 'inaccessible', warning: false, reason: finish.reason }
      : { status: 'succeeded', warning: finish.result.missing_sections.length > 0, reason: null, activity_gap: finish.result.activity_gap ?? null };
  const observedEventIds = finish.outcome === 'succeeded' ? (finish.result.activity?.map((e) => e.external_id) ?? []) : [];
  if (item.profile_id === null) return finishCompanyPage(db, finish, end, observedEventIds, now);
  const profileId = item.profile_id;
  for (let read = 1; ; read++) {
    const facts = await readFinishFacts(db, {
      reportId: item.report_id,
      profileId,
      observedEventIds,
      ended: { id: item.id, status: end.status, warning: end.warning, activity_gap: end.activity_gap },
      observes: observesProfile(finish),
    });
    if (facts.factsVersion === null) return forgetBlobsOfErased(db, finish, now);
    const given: PersonItemEnd =
      finish.outcome === 'inaccessible'
        ? { factsVersion: facts.factsVersion, person: facts.person, writes: [], analysisAvailable: false }
        : personWrites(db, finish, { ...item, profile_id: profileId }, facts, now);
    const outcome = await endPersonItem(db, item, end, now, given);
    if (outcome === 'ended') return finish.outcome === 'inaccessible' ? 'inaccessible' : 'succeeded';
    if (outcome === 'lost') return (await itemExists(db, item.id)) ? 'skipped' : forgetBlobsOfErased(db, finish, now);
    if (read >= MAX_FINISH_READS) throw new Error(`the person of item ${item.id} changed ${read} times while it finished`);
  }
}

/** Whether a finishing item observed the person's profile (a full-profile item that delivered it): it is then its own history round. */
function observesProfile(finish: Finish): boolean {
  return finish.outcome === 'succeeded' && finish.item.mode === 'full_profile' && Boolean(finish.result.profile);
}

/**
 * The person was erased while their item ran (their attachment and items are
 * gone): nothing of the item is stored, and the blobs it stored for its
 * evidence are queued for deletion (deleted unless other evidence uses them:
 * store/erasure-repository.ts).
 */
async function forgetBlobsOfErased(db: Db, finish: Finish, now: Date): Promise<'skipped'> {
  if (finish.outcome === 'succeeded') {
    await queueBlobDeletions(
      db,
      finish.evidence.flatMap((e) => [e.prepared.original.sha256, e.prepared.preview.sha256]),
      now,
    );
  }
  return 'skipped';
}

/**
 * A person's succeeded item: its writes and the person's facts as they
 * leave them, from what was read of the person (`read`), and the analysis
 * evaluated from those facts.
 */
function personWrites(
  db: Db,
  finish: Extract<Finish, { outcome: 'succeeded' }>,
  item: ClaimedItem & { profile_id: string },
  read: FinishRead,
  now: Date,
): PersonItemEnd {
  const { result, mediaGeneration } = finish;
  const capturedAt = new Date(result.captured_at);
  const holdMedia = mediaGeneration !== undefined && finish.evidence.length > 0;
  // The blobs stored before the read are still there if no media collection ran since the generation was read
  // (checked again by the statement that ends the item, under the collections' lock).
  if (holdMedia) checkMediaGeneration({ beforeBlobs: mediaGeneration, atRead: read.mediaGeneration });
  const ids = { reportId: item.report_id, profileId: item.profile_id, itemId: item.id };
  const activity = result.activity === null ? null : { ...ids, events: result.activity, capturedAt };
  const usage = usageWrite(finish);
  const evidence = evidenceWrites(db, { ...ids, images: finish.evidence }, now, gateHolds);
  const events = activity && activityWrites(db, activity, now, read.existingEvents, gateHolds);
  const itemWrites = [...evidence.writes, ...(events?.writes ?? []), ...(usage ? [usage] : [])];
  const common = { factsVersion: read.factsVersion!, mediaGeneration: holdMedia ? mediaGeneration : undefined };
  // The person's checks, from this item's observation of the profile (a full-profile item) or the
  // stored one (an activity item), with the activity and evidence as this item leaves them.
  const observed = observesProfile(finish) ? { profile: result.profile!, capturedAt } : null;
  const facts = finishFacts(read, { itemId: item.id, observed, company: finish.inputs.company, evidence: evidence.rows, activity: events?.rows ?? null });
  // No profile data yet: activity alone waits for it.
  if (facts.profile === null) return { ...common, person: facts.person, writes: itemWrites, analysisAvailable: false };
  const analysis = analyzeProfile(facts.profile.facts);
  const { stored } = facts.profile;
  const profile = facts.profile.facts.profile;
  const change = analysisChange(item.report_id, stored, analysis, now);
  const observedBy = observed ? item.id : stored!.item_id;
  // The history keeps every observation of the profile (an unchanged one too: a scan that changed
  // nothing), and what a later item of the same round changes of its analysis, in that round's row.
  const round = (observed || change.kind === 'analysis') && read.history;
  const scan = round ? historyScan(round, analysis) : null;
  // The person's facts as they stand once the analysis and the round's row are stored: the delta is recorded with them, in one statement.
  const analyzed = facts.person && change.kind === 'analysis' ? withAnalysis(facts.person, analysisFacts(analysis, profile)) : facts.person;
  const person = analyzed && round && scan && round.latest ? withLatestScan(analyzed, scan) : analyzed;
  return {
    ...common,
    person,
    writes: [
      ...itemWrites,
      ...analysisWrites(db, { reportId: item.report_id, profileId: item.profile_id, itemId: observedBy, profile }, analysis, change, gateHolds),
      ...(round && scan ? [historyWrite(db, { reportId: item.report_id, profileId: item.profile_id, round }, scan, analysis, now, gateHolds)] : []),
    ],
    analysisAvailable: change.kind === 'analysis',
  };
}

/**
 * The company page's item: what is stored of the company page read first
 * (its events the item observed, the version of its observation), then the
 * item's writes in the one statement that ends it, which writes only if no
 * other company page item of the report ended since the read
 * (queue/finish.ts, endCompanyItem); when one did, it reads and
 * decides again.
 */
async function finishCompanyPage(db: Db, finish: Finish, end: ItemEnd, observedEventIds: string[], now: Date): Promise<ItemOutcome | 'skipped'> {
  const { item } = finish;
  for (let read = 1; ; read++) {
    const stored = await readCompanyFinish(db, { reportId: item.report_id, observedEventIds });
    if (stored === null) return 'skipped'; // The report is gone (never, today: reports are not deleted).
    const given: CompanyItemEnd =
      finish.outcome === 'inaccessible' ? { companyVersion: stored.companyVersion, writes: [] } : companyWrites(db, finish, stored, now);
    const outcome = await endCompanyItem(db, item, end, now, given);
    if (outcome === 'ended') return finish.outcome === 'inaccessible' ? 'inaccessible' : 'succeeded';
    if (outcome === 'lost') return 'skipped';
    if (read >= MAX_FINISH_READS) throw new Error(`the company page of item ${item.id} changed ${read} times while it finished`);
  }
}

/** The company page's succeeded item: its writes (evidence, events, context, billed records), from what was read of the company page (`read`). */
function companyWrites(db: Db, finish: Extract<Finish, { outcome: 'succeeded' }>, read: CompanyFinishRead, now: Date): CompanyItemEnd {
  const { item, result, mediaGeneration } = finish;
  const capturedAt = new Date(result.captured_at);
  const ids = { reportId: item.report_id, profileId: null, itemId: item.id };
  const holdMedia = mediaGeneration !== undefined && finish.evidence.length > 0;
  // The blobs stored before the read are still there if no media collection ran since the generation was read
  // (checked again by the statement that ends the item, under the collections' lock).
  if (holdMedia) checkMediaGeneration({ beforeBlobs: mediaGeneration, atRead: read.mediaGeneration });
  const usage = usageWrite(finish);
  const writes = [
    ...evidenceWrites(db, { ...ids, images: finish.evidence }, now, gateHolds).writes,
    ...(result.activity === null ? [] : activityWrites(db, { ...ids, events: result.activity, capturedAt }, now, read.existingEvents, gateHolds).writes),
    ...(result.company ? [companyWrite(db, { reportId: item.report_id, itemId: item.id, company: result.company, capturedAt }, now, gateHolds)] : []),
    ...(usage ? [usage] : []),
  ];
  return { companyVersion: read.companyVersion, writes, mediaGeneration: holdMedia ? mediaGeneration : undefined };
}

/** The item's billed records, counted with the result they paid for (a stored result is counted once, a lost one never); null when none. */
function usageWrite(finish: Extract<Finish, { outcome: 'succeeded' }>) {
  const records = finish.result.billed_records ?? 0;
  if (finish.provider === undefined || records <= 0) return null;
  return providerUsageWrite({ workspaceId: finish.item.workspace_id, provider: finish.provider, records }, gateHolds);
}

function withAnalysis(person: GatheredPerson, analysis: GatheredPerson['facts']['analysis']): GatheredPerson {
  return { ...person, facts: { ...person.facts, analysis } };
}

/** `person` with `scan`, their round's row, as their newest scan (its round's row is, or will be, their newest). */
function withLatestScan(person: GatheredPerson, scan: HistoryScan): GatheredPerson {
  return { ...person, facts: { ...person.facts, latestScan: { since: scan.since && { fixed: scan.since.fixed, opened: scan.since.opened } } } };
}
