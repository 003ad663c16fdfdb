/** Every module's sample calls (scripts/gen-sql.ts). */
import { samples as queueAdmission } from './queue-admission.js';
import { samples as queueBegin } from './queue-begin.js';
import { samples as queueClaim } from './queue-claim.js';
import { samples as queueDeltas } from './queue-deltas.js';
import { samples as queueFinish } from './queue-finish.js';
import { samples as queueFold } from './queue-fold.js';
import { samples as queueHeartbeat } from './queue-heartbeat.js';
import { samples as queueSettle } from './queue-settle.js';
import { samples as queueStats } from './queue-stats.js';
import { samples as queueTransitions } from './queue-transitions.js';
import { samples as storeAnalysisReadRepository } from './store-analysis-read-repository.js';
import { samples as storeHistoryRepository } from './store-history-repository.js';
import { samples as storeImportRepository } from './store-import-repository.js';
import { samples as storeLocks } from './store-locks.js';
import { samples as storePersonFacts } from './store-person-facts.js';
import { samples as storeRefreshRepository } from './store-refresh-repository.js';
import { samples as storeReportPeopleRepository } from './store-report-people-repository.js';
import { samples as storeReportRepository } from './store-report-repository.js';
import { samples as storeRollupRepository } from './store-rollup-repository.js';
import { samples as storeScanRepository } from './store-scan-repository.js';
import type { ModuleSamples } from './sample.js';

export const SAMPLES: readonly ModuleSamples[] = [
  queueAdmission,
  queueBegin,
  queueClaim,
  queueDeltas,
  queueFinish,
  queueFold,
  queueHeartbeat,
  queueSettle,
  queueStats,
  queueTransitions,
  storeAnalysisReadRepository,
  storeHistoryRepository,
  storeImportRepository,
  storeLocks,
  storePersonFacts,
  storeRefreshRepository,
  storeReportPeopleRepository,
  storeReportRepository,
  storeRollupRepository,
  storeScanRepository,
];
