/**
 * The end of a collected item, as one story in one transaction
 * (store/item-repository.ts endClaimedItem ends the item, holds the locks
 * and rolls up). A person's item reads, in one statement, what is stored of
 * the person; builds its writes (evidence images, activity, billed records);
 * takes the person's facts as those writes leave them (finishFacts),
 * evaluates their checks (domain/profile-analysis.ts), and hands every write
 * and the person's facts as they will stand to the statement that records
 * the person's roll-up delta. The company page's item stores its rows one
 * statement each. Nothing is written when the claim no longer holds the item
 * ('skipped').
 */
import type { CollectResult } from '../domain/collected.js';
import { analysisFacts } from '../domain/analysis-aggregate.js';
import { analysisChange, analyzeProfile } from '../domain/profile-analysis.js';
import {
  activityWrites,
  analysisWrites,
  evidenceWrites,
  finishFacts,
  readFinishFacts,
  storeActivity,
  storeCompany,
  storeEvidence,
  type EvidenceToStore,
} from '../store/analysis-repository.js';
import type { Db } from '../store/database.js';
import { endClaimedItem, type AnalysisInputs, type ClaimedItem, type ItemOutcome } from '../store/item-repository.js';
import { checkMediaGeneration, mediaGeneration as readMediaGeneration } from '../store/maintenance-repository.js';
import type { GatheredPerson } from '../store/rollup-repository.js';
import { providerUsageWrite } from '../store/provider-usage-repository.js';

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

export async function finishItem(db: Db, finish: Finish, now: Date): Promise<ItemOutcome | 'skipped'> {
  const { item } = finish;
  if (finish.outcome === 'inaccessible') {
    const ended = await endClaimedItem(db, item, { status: 'inaccessible', warning: false, reason: finish.reason }, now, async () => {});
    return ended ? 'inaccessible' : 'skipped';
  }
  const { result, mediaGeneration } = finish;
  const capturedAt = new Date(result.captured_at);
  const end = { status: 'succeeded' as const, warning: result.missing_sections.length > 0, reason: null };
  const holdMedia = mediaGeneration !== undefined && finish.evidence.length > 0;
  /** The blobs stored before the transaction are still there: no media collection ran since the generation was read. */
  const blobsKept = (underLock: number) => {
    if (holdMedia) checkMediaGeneration({ beforeBlobs: mediaGeneration, underLock });
  };
  const ended = await endClaimedItem(
    db,
    item,
    end,
    now,
    async (trx) => {
      const ids = { reportId: item.report_id, profileId: item.profile_id, itemId: item.id };
      const activity = result.activity === null ? null : { ...ids, events: result.activity, capturedAt };
      // Counted with the result it paid for: a stored result is counted once, a lost one never.
      const usage =
        finish.provider !== undefined && (result.billed_records ?? 0) > 0
          ? providerUsageWrite({ workspaceId: item.workspace_id, provider: finish.provider, records: result.billed_records! })
          : null;
      if (item.profile_id === null) {
        await storeEvidence(trx, { ...ids, images: finish.evidence }, now);
        if (activity) await storeActivity(trx, activity, now);
        if (usage) await usage.execute(trx);
        if (holdMedia) blobsKept(await readMediaGeneration(trx));
        if (result.company) await storeCompany(trx, { reportId: item.report_id, itemId: item.id, company: result.company, capturedAt }, now);
        return;
      }
      // A person's item: what is stored of the person is read once, before the item's writes, which go
      // with the analysis into the statement that records the roll-up delta (finishFacts says what they leave).
      const read = await readFinishFacts(trx, {
        reportId: item.report_id,
        profileId: item.profile_id,
        observedEventIds: result.activity?.map((e) => e.external_id) ?? [],
      });
      blobsKept(read.mediaGeneration);
      const evidence = evidenceWrites(trx, { ...ids, images: finish.evidence }, now);
      const events = activity && activityWrites(trx, activity, now, read.existingEvents);
      const itemWrites = [...evidence.writes, ...(events?.writes ?? []), ...(usage ? [usage] : [])];
      // The person's checks, from this item's observation of the profile (a full-profile item) or the
      // stored one (an activity item), with the activity and evidence as this item leaves them.
      const observed = item.mode === 'full_profile' && result.profile ? { profile: result.profile, capturedAt } : null;
      const facts = finishFacts(read, { itemId: item.id, observed, company: finish.inputs.company, evidence: evidence.rows, activity: events?.rows ?? null });
      if (facts.profile === null) return { person: facts.person, writes: itemWrites }; // No profile data yet: activity alone waits for it.
      const analysis = analyzeProfile(facts.profile.facts);
      const { stored } = facts.profile;
      const profile = facts.profile.facts.profile;
      const change = analysisChange(item.report_id, stored, analysis, now);
      const observedBy = observed ? item.id : stored!.item_id;
      // The person's facts as they stand once the analysis is stored: the delta is recorded with it, in one statement.
      const person = facts.person && change.kind === 'analysis' ? withAnalysis(facts.person, analysisFacts(analysis, profile)) : facts.person;
      return {
        person,
        writes: [
          ...itemWrites,
          ...analysisWrites(trx, { reportId: item.report_id, profileId: item.profile_id, itemId: observedBy, profile }, analysis, change),
        ],
      };
    },
    { holdMedia },
  );
  return ended ? 'succeeded' : 'skipped';
}

function withAnalysis(person: GatheredPerson, analysis: GatheredPerson['facts']['analysis']): GatheredPerson {
  return { ...person, facts: { ...person.facts, analysis } };
}
