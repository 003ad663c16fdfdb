import {
  claimMaintenanceRun,
  collectObsoleteMedia,
  completeProgressRollups,
  drainBlobDeletions,
  mediaGeneration,
  processBlobDeletions,
  pruneOldScans,
  tombstoneExpiredReceipts,
} from '../../src/store/maintenance-repository.js';
import { answer, ITEM_ID, NOW, REPORT_ID, type ModuleSamples } from './sample.js';

const deleteBlob = () => Promise.resolve();

export const samples: ModuleSamples = {
  module: 'store/maintenance-repository',
  operations: {
    mediaGeneration: { run: (db) => mediaGeneration(db) },
    claimMaintenanceRun: { run: (db) => claimMaintenanceRun(db, NOW, 3_600_000) },
    tombstoneExpiredReceipts: { run: (db) => tombstoneExpiredReceipts(db, NOW, NOW) },
    collectObsoleteMedia: { run: (db) => collectObsoleteMedia(db, NOW, deleteBlob) },
    processBlobDeletions: { run: (db) => processBlobDeletions(db, NOW, deleteBlob) },
    drainBlobDeletions: { run: (db) => drainBlobDeletions(db, NOW, deleteBlob) },
    completeProgressRollups: {
      run: (db) => completeProgressRollups(db, NOW),
      rows: answer(
        ['select a.report_id from report_aggregates a', [{ report_id: REPORT_ID }]],
        ['as facts from', [{ facts: { item: null, observed: false, events: null } }]],
      ),
    },
    pruneOldScans: { run: (db) => pruneOldScans(db, NOW, NOW), rows: answer(['select i.id', [{ id: ITEM_ID }]]) },
  },
};
