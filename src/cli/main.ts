/**
 * `profile-scan` sub-commands: serve, worker, migrate, admin …
 * Configuration comes from the environment only (src/config.ts).
 */
import { ConfigError, loadConfig } from '../config.js';
import { runAdmin, UsageError } from './admin.js';
import { runClient } from '@profile-scan/client/cli';
import { runMigrate } from './migrate.js';
import { runServe } from './serve.js';
import { runWorker } from './worker.js';

const USAGE = `usage: profile-scan <command>

commands:
  serve                         API server with an in-process scan worker (npm start)
  worker [--concurrency N]      scan workers only, for scaling out
  migrate                       apply database migrations and exit
  admin workspace create --name NAME
  admin workspace update ID [--api-access on|off] [--writes-per-key N|default]
                            [--writes-per-workspace N|default] [--profiles-per-minute N|default]
                            [--scan-allowance N|unlimited]
  admin workspace usage ID      (scan allowance and provider records billed)
  admin key create --workspace ID [--scopes "*"|"a,b"] [--mode test|live] [--user USER_ID]
  admin key revoke KEY_ID
  admin report archive|unarchive REPORT_ID
  admin report share REPORT_ID --public on|off
  admin report refresh REPORT_ID [--profile ID[,ID…] | --failed]   (scan people again)
  admin report schedule REPORT_ID --every off|weekly|monthly      (scheduled refreshes)
  admin profile remove REPORT_ID PROFILE_ID
  admin erase-person --workspace ID --url PROFILE_URL | --report ID --profile ID
  admin export-person --workspace ID --url PROFILE_URL | --report ID --profile ID [--out FILE]
  admin workspace delete ID --confirm NAME   (everything of the workspace; docs/privacy.md)
  admin audit list [--workspace ID] [--limit N]
  admin user create --workspace ID --name NAME [--role owner|admin|member] [--email EMAIL]
  admin user link USER_ID      (prints a one-time sign-in link that sets a new password)
  (admin commands accept --json to print one JSON object)
  client <command>              command-line client for API users: create, import CSV, watch,
                                summary, export, evidence, mirror (profile-scan client --help)

environment: PORT, HOST, DATA_DIR, DATABASE_URL, PUBLIC_BASE_URL, SIMULATOR_DELAY_MS,
  WORKER_CONCURRENCY, ITEM_LEASE_SECONDS, ITEM_MAX_ATTEMPTS, CURSOR_SECRET, LOG_LEVEL,
  COLLECTOR, BRIGHTDATA_*, PROVIDER_*, EVIDENCE_*, S3_*, METRICS_TOKEN, METRICS_PORT, SHUTDOWN_TIMEOUT_SECONDS,
  MAINTENANCE_INTERVAL, REFRESH_SCHEDULE_INTERVAL, RETENTION_* (see README.md and docs/operations.md)`;

/** serve and worker run until a signal; they exit as soon as they have shut down (nothing may linger). */
const LONG_RUNNING = new Set(['serve', 'worker']);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  // The API client needs no server configuration or database (packages/client/src/cli/client.ts, through the package's ./cli entry).
  if (command === 'client') return runClient(rest, process);
  const config = loadConfig(process.env);
  switch (command) {
    case 'serve':
      return runServe(config);
    case 'worker':
      return runWorker(config, rest);
    case 'migrate':
      return runMigrate(config);
    case 'admin':
      return runAdmin(config, rest);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    if (LONG_RUNNING.has(process.argv[2] ?? '')) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`profile-scan: configuration error: ${error.message}`);
      process.exitCode = 78;
    } else if (error instanceof UsageError) {
      console.error(`profile-scan: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error(`profile-scan: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
    if (LONG_RUNNING.has(process.argv[2] ?? '')) process.exit(process.exitCode);
  },
);
