/** Every module's sample calls (scripts/gen-sql.ts). */
import { samples as queueAdmission } from './queue-admission.js';
import { samples as queueBegin } from './queue-begin.js';
import { samples as queueClaim } from './queue-claim.js';
import { samples as queueDeltas } from './queue-deltas.js';
import { samples as queueFinish } from './queue-finish.js';
import { samples as queueFold } from './queue-fold.js';
import { samples as queueHeartbeat } from './queue-heartbeat.js';
import { samples as queueItem } from './queue-item.js';
import { samples as queueSettle } from './queue-settle.js';
import { samples as queueStats } from './queue-stats.js';
import { samples as queueTransitions } from './queue-transitions.js';
import { samples as storeAnalysisReadRepository } from './store-analysis-read-repository.js';
import { samples as storeAnalysisRepository } from './store-analysis-repository.js';
import { samples as storeAuditRepository } from './store-audit-repository.js';
import { samples as storeBrightdataRepository } from './store-brightdata-repository.js';
import { samples as storeErasureRepository } from './store-erasure-repository.js';
import { samples as storeEvidenceRepository } from './store-evidence-repository.js';
import { samples as storeExportPreferenceRepository } from './store-export-preference-repository.js';
import { samples as storeHealthRepository } from './store-health-repository.js';
import { samples as storeHistoryRepository } from './store-history-repository.js';
import { samples as storeIdempotencyRepository } from './store-idempotency-repository.js';
import { samples as storeImportRepository } from './store-import-repository.js';
import { samples as storeKeyRepository } from './store-key-repository.js';
import { samples as storeLocks } from './store-locks.js';
import { samples as storeMaintenanceRepository } from './store-maintenance-repository.js';
import { samples as storeMemberRepository } from './store-member-repository.js';
import { samples as storePersonExportRepository } from './store-person-export-repository.js';
import { samples as storePersonFacts } from './store-person-facts.js';
import { samples as storePersonLinkRepository } from './store-person-link-repository.js';
import { samples as storeProviderQuotaRepository } from './store-provider-quota-repository.js';
import { samples as storeProviderUsageRepository } from './store-provider-usage-repository.js';
import { samples as storeRateLimitRepository } from './store-rate-limit-repository.js';
import { samples as storeRefreshRepository } from './store-refresh-repository.js';
import { samples as storeRefreshScheduleRepository } from './store-refresh-schedule-repository.js';
import { samples as storeReportPeopleRepository } from './store-report-people-repository.js';
import { samples as storeReportRepository } from './store-report-repository.js';
import { samples as storeRollupRepository } from './store-rollup-repository.js';
import { samples as storeScanAllowanceRepository } from './store-scan-allowance-repository.js';
import { samples as storeScanRepository } from './store-scan-repository.js';
import { samples as storeSessionLock } from './store-session-lock.js';
import { samples as storeSessionRepository } from './store-session-repository.js';
import { samples as storeSettingsRepository } from './store-settings-repository.js';
import { samples as storeTransaction } from './store-transaction.js';
import { samples as storeWorkspaceRepository } from './store-workspace-repository.js';
import type { ModuleSamples } from './sample.js';

export const SAMPLES: readonly ModuleSamples[] = [
  queueAdmission,
  queueBegin,
  queueClaim,
  queueDeltas,
  queueFinish,
  queueFold,
  queueHeartbeat,
  queueItem,
  queueSettle,
  queueStats,
  queueTransitions,
  storeAnalysisReadRepository,
  storeAnalysisRepository,
  storeAuditRepository,
  storeBrightdataRepository,
  storeErasureRepository,
  storeEvidenceRepository,
  storeExportPreferenceRepository,
  storeHealthRepository,
  storeHistoryRepository,
  storeIdempotencyRepository,
  storeImportRepository,
  storeKeyRepository,
  storeLocks,
  storeMaintenanceRepository,
  storeMemberRepository,
  storePersonExportRepository,
  storePersonFacts,
  storePersonLinkRepository,
  storeProviderQuotaRepository,
  storeProviderUsageRepository,
  storeRateLimitRepository,
  storeRefreshRepository,
  storeRefreshScheduleRepository,
  storeReportPeopleRepository,
  storeReportRepository,
  storeRollupRepository,
  storeScanAllowanceRepository,
  storeScanRepository,
  storeSessionLock,
  storeSessionRepository,
  storeSettingsRepository,
  storeTransaction,
  storeWorkspaceRepository,
];
