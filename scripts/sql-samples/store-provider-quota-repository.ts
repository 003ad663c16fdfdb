import { claimProviderSlot, ensureProviderSlots, releaseProviderSlot, reserveProviderStart } from '../../src/store/provider-quota-repository.js';
import type { ModuleSamples } from './sample.js';

const PROVIDER = 'https://provider.example/api';
const SLOT = { provider: PROVIDER, slot: 1, holder: 'holder-sample' };

export const samples: ModuleSamples = {
  module: 'store/provider-quota-repository',
  operations: {
    ensureProviderSlots: { run: (db) => ensureProviderSlots(db, PROVIDER, 4) },
    claimProviderSlot: { run: (db) => claimProviderSlot(db, { provider: PROVIDER, maxSlots: 4, holder: 'holder-sample', leaseMs: 60_000 }) },
    reserveProviderStart: { run: (db) => reserveProviderStart(db, { ...SLOT, intervalMs: 1000, leaseMs: 60_000 }), rows: () => [{ wait_ms: 0, held: true }] },
    releaseProviderSlot: { run: (db) => releaseProviderSlot(db, SLOT) },
  },
};
