/** `profile-scan migrate`: applies migrations (ours and the queue's) and exits. */
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { openRuntime } from '../runtime.js';

export async function runMigrate(config: Config): Promise<number> {
  const logger = createLogger(config.logLevel, 'migrate');
  const runtime = await openRuntime(config, { log: (m) => logger.info(m), logger });
  try {
    const applied = runtime.appliedMigrations;
    console.log(applied.length === 0 ? 'database is up to date' : `applied migrations: ${applied.join(', ')}`);
    return 0;
  } finally {
    await runtime.close();
  }
}
