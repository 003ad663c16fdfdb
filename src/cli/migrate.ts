/** `profile-scan migrate`: applies migrations (ours and the queue's) and exits. */
import type { Config } from '../config.js';
import { openRuntime } from '../runtime.js';

export async function runMigrate(config: Config): Promise<number> {
  const runtime = await openRuntime(config, { log: (m) => console.error(`profile-scan: ${m}`) });
  try {
    const applied = runtime.appliedMigrations;
    console.log(applied.length === 0 ? 'database is up to date' : `applied migrations: ${applied.join(', ')}`);
    return 0;
  } finally {
    await runtime.close();
  }
}
