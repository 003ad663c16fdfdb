import { lockReport } from '../../src/store/locks.js';
import { retryingTransaction } from '../../src/store/transaction.js';
import { REPORT_ID, type ModuleSamples } from './sample.js';

export const samples: ModuleSamples = {
  module: 'store/transaction',
  operations: {
    retryingTransaction: { run: (db) => retryingTransaction(db, (trx) => lockReport(trx, REPORT_ID)) },
    'retryingTransaction (asynchronous commit)': { run: (db) => retryingTransaction(db, (trx) => lockReport(trx, REPORT_ID), { asynchronousCommit: true }) },
    'retryingTransaction (read-only snapshot)': { run: (db) => retryingTransaction(db, (trx) => lockReport(trx, REPORT_ID), { readOnlySnapshot: true }) },
  },
};
