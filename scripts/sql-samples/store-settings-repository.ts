import { cursorSecret, getOrCreateSetting } from '../../src/store/settings-repository.js';
import { answer, type ModuleSamples } from './sample.js';

const setting = answer(['select "value"', [{ value: 'sample-value' }]]);

export const samples: ModuleSamples = {
  module: 'store/settings-repository',
  operations: {
    getOrCreateSetting: { run: (db) => getOrCreateSetting(db, 'sample_setting', () => 'sample-value'), rows: setting },
    cursorSecret: { run: (db) => cursorSecret(db, null), rows: setting },
  },
};
