/**
 * The end of a collected item, as one story in one transaction
 * (store/item-repository.ts endClaimedItem holds the locks and rolls up):
 * store the evidence images, the activity, the billed records and the
 * company page; then evaluate the person's checks on what is now known of
 * them (domain/profile-analysis.ts) and store the analysis; end the item.
 * Nothing is written when the claim no longer holds the item ('skipped').
 */
import type { CollectResult } from '../domain/collected.js';
import { analysisChange, analyzeProfile } from '../domain/profile-analysis.js';
import { readProfileFacts, storeActivity, storeAnalysis, storeCompany, storeEvidence, type EvidenceToStore } from '../store/analysis-repository.js';
import type { Db } from '../store/database.js';
import { endClaimedItem, type AnalysisInputs, type ClaimedItem, type ItemOutcome } from '../store/item-repository.js';
import { recordProviderUsage } from '../store/provider-usage-repository.js';

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
  const { result } = finish;
  const capturedAt = new Date(result.captured_at);
  const end = { status: 'succeeded' as const, warning: result.missing_sections.length > 0, reason: null };
  const { mediaGeneration } = finish;
  const checked = (underLock: number) => (mediaGeneration === undefined ? undefined : { beforeBlobs: mediaGeneration, underLock });
  const ended = await endClaimedItem(
    db,
    item,
    end,
    now,
    async (trx, locked) => {
      const ids = { reportId: item.report_id, profileId: item.profile_id, itemId: item.id };
      await storeEvidence(trx, { ...ids, images: finish.evidence, mediaGeneration: checked(locked.media_generation) }, now);
      if (result.activity !== null) await storeActivity(trx, { ...ids, events: result.activity, capturedAt }, now);
      if (finish.provider !== undefined && result.billed_records !== undefined) {
        // Counted with the result it paid for: a stored result is counted once, a lost one never.
        await recordProviderUsage(trx, { workspaceId: item.workspace_id, provider: finish.provider, records: result.billed_records });
      }
      if (item.kind === 'company_page' && result.company) {
        await storeCompany(trx, { reportId: item.report_id, itemId: item.id, company: result.company, capturedAt }, now);
      }
      if (item.profile_id === null) return;
      // The person's checks, from this item's observation of the profile (a full-profile item) or the
      // stored one (an activity item), with the activity and evidence stored so far.
      const observed = item.mode === 'full_profile' && result.profile ? { profile: result.profile, capturedAt } : null;
      const read = await readProfileFacts(trx, { reportId: item.report_id, profileId: item.profile_id, observed, company: finish.inputs.company });
      if (read === null) return; // No profile data yet: activity alone waits for it.
      const analysis = analyzeProfile(read.facts);
      const observedBy = observed ? item.id : read.stored!.item_id;
      await storeAnalysis(
        trx,
        { reportId: item.report_id, profileId: item.profile_id, itemId: observedBy, profile: read.facts.profile },
        analysis,
        analysisChange(item.report_id, read.stored, analysis, now),
      );
    },
    { holdMedia: mediaGeneration !== undefined && finish.evidence.length > 0 },
  );
  return ended ? 'succeeded' : 'skipped';
}
