import { anyWorkerBeating, beatWorker, handToLease, registerWorker, retireWorker, unknownClaims } from '../../src/queue/heartbeat.js';
import { CLAIM_ID, ITEM_ID, WORKER_ID, type ModuleSamples } from './sample.js';

const WORKER = { id: WORKER_ID, host: 'sample-host', pid: 1234 };

export const samples: ModuleSamples = {
  module: 'queue/heartbeat',
  operations: {
    registerWorker: { run: (db) => registerWorker(db, WORKER) },
    beatWorker: { run: (db) => beatWorker(db, WORKER, [{ claimId: CLAIM_ID, itemId: ITEM_ID }], 300) },
    handToLease: { run: (db) => handToLease(db, CLAIM_ID, 60) },
    unknownClaims: { run: (db) => unknownClaims(db, WORKER_ID, [CLAIM_ID]) },
    anyWorkerBeating: { run: (db) => anyWorkerBeating(db, 30) },
    retireWorker: { run: (db) => retireWorker(db, WORKER_ID) },
  },
};
