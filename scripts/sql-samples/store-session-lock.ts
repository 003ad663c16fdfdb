import { withSessionLock } from '../../src/store/session-lock.js';
import { answer, type ModuleSamples } from './sample.js';

const work = () => Promise.resolve(true);

export const samples: ModuleSamples = {
  module: 'store/session-lock',
  operations: {
    'withSessionLock (waiting)': { run: (db) => withSessionLock(db, 4242, { wait: true }, work) },
    'withSessionLock (trying)': { run: (db) => withSessionLock(db, 4242, { wait: false }, work), rows: answer(['pg_try_advisory_lock', [{ locked: true }]]) },
  },
};
