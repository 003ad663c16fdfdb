import { addProfileScans, countQueuedPeople, readAllowanceRow, setAllowanceLimit } from '../../src/store/scan-allowance-repository.js';
import { answer, ITEM_ID, NOW, WORKSPACE_ID, type ModuleSamples } from './sample.js';

const ROW = { workspace_id: WORKSPACE_ID, month: '2026-01', profile_scans: 3, monthly_limit: 100 };

export const samples: ModuleSamples = {
  module: 'store/scan-allowance-repository',
  operations: {
    readAllowanceRow: { run: (db) => readAllowanceRow(db, WORKSPACE_ID, '2026-01') },
    addProfileScans: { run: (db) => addProfileScans(db, WORKSPACE_ID, '2026-01', 2), rows: answer(['scan_allowance', [ROW]]) },
    countQueuedPeople: { run: (db) => countQueuedPeople(db, [ITEM_ID]), rows: answer(['count(distinct profile_id)', [{ people: 1 }]]) },
    setAllowanceLimit: { run: (db) => setAllowanceLimit(db, WORKSPACE_ID, 100, NOW) },
  },
};
