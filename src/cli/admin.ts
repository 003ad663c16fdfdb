/**
 * `profile-scan admin …`: operator commands. They work while the server runs
 * (same environment: they connect to the same database). `--json` prints one
 * JSON object; errors go to stderr with a non-zero exit code.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { publicBaseUrlOf, type Config } from '../config.js';
import { parseScopes, type KeyMode } from '../domain/keys.js';
import { presentProfile, presentReport } from '../use-cases/present.js';
import { createLogger } from '../logger.js';
import { openRuntime, scanQueue, type Runtime } from '../runtime.js';
import type { WorkspaceChanges } from '../store/workspace-repository.js';
import { changeWorkspace, createWorkspace } from '../use-cases/workspace-settings.js';
import { issueKeyAsOperator, revokeKeyAsOperator } from '../use-cases/manage-keys.js';
import { removePerson, setReportArchived, setReportSharing } from '../use-cases/manage-report.js';
import { isRole } from '../domain/web-tokens.js';
import { accessLinkPath, createSignInLink, createUserWithLink } from '../use-cases/workspace-members.js';
import { ApiError } from '../domain/errors.js';
import { parseAllowance } from '../domain/scan-allowance.js';
import { isWorkspaceLimit } from '../domain/rate-limits.js';
import { isUuid } from '../domain/uuid.js';
import { readScanAllowance, setScanAllowance } from '../use-cases/scan-allowance.js';
import { readBilledRecords } from '../use-cases/provider-usage.js';
import { serviceClock } from './serve.js';
import { createMediaStore } from '../scanning/media/create-media-store.js';
import { deleteWorkspace, erasePerson, exportPerson, type PersonTarget } from '../use-cases/personal-data.js';
import { readAuditLog } from '../use-cases/audit-log.js';
import { findAnyReport } from '../use-cases/require-report.js';
import { refreshReport, type RefreshTarget } from '../use-cases/refresh-report.js';
import { setRefreshSchedule } from '../use-cases/refresh-schedule.js';
import { parseCadence } from '../domain/refresh-schedule.js';

export class UsageError extends Error {}

function uuidArg(value: string | undefined, what: string): string {
  if (!value || !isUuid(value)) throw new UsageError(`${what} must be a UUID`);
  return value.toLowerCase();
}

function onOff(value: string | undefined, flag: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`${flag} takes "on" or "off"`);
}

function limitArg(value: string | undefined, flag: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value) || !isWorkspaceLimit(Number(value))) throw new UsageError(`${flag} takes a whole number from 1 to 1000000 or "default"`);
  return Number(value);
}

class Failure extends Error {}

export async function runAdmin(config: Config, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      'api-access': { type: 'string' },
      'writes-per-key': { type: 'string' },
      'writes-per-workspace': { type: 'string' },
      'profiles-per-minute': { type: 'string' },
      'scan-allowance': { type: 'string' },
      workspace: { type: 'string' },
      scopes: { type: 'string' },
      mode: { type: 'string' },
      user: { type: 'string' },
      public: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
      url: { type: 'string' },
      report: { type: 'string' },
      profile: { type: 'string' },
      confirm: { type: 'string' },
      out: { type: 'string' },
      limit: { type: 'string' },
      failed: { type: 'boolean', default: false },
      every: { type: 'string' },
    },
  });
  const [noun, verb, ...args] = positionals;
  const command = `${noun ?? ''} ${verb ?? ''}`.trim();
  const known = [
    'workspace create',
    'workspace update',
    'workspace usage',
    'key create',
    'key revoke',
    'report archive',
    'report unarchive',
    'report share',
    'report refresh',
    'report schedule',
    'profile remove',
    'user create',
    'user link',
    'erase-person',
    'export-person',
    'workspace delete',
    'audit list',
  ];
  if (!known.includes(command)) throw new UsageError(`unknown admin command "${command}"`);

  // Validate arguments before touching the database.
  const run = prepare(command, args, values);
  // Diagnostics are log records on stderr (src/logger.ts); stdout holds only the command's result.
  const logger = createLogger(config.logLevel, 'admin');
  const runtime = await openRuntime(config, { poolSize: 2, log: (m) => logger.info(m), logger });
  try {
    const result = await run(runtime, config);
    if (values.json) console.log(JSON.stringify(result.json));
    else console.log(result.text);
    return 0;
  } catch (error) {
    if (error instanceof Failure) {
      if (values.json) console.log(JSON.stringify({ error: error.message }));
      console.error(`profile-scan: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

type Outcome = { json: unknown; text: string };

type PersonTargetArgs = { workspaceId: string; url: string } | { reportId: string; profileId: string };

/** `--workspace W --url URL` (everywhere in the workspace) or `--report R --profile P` (one attachment). */
function personTargetArgs(str: (name: string) => string | undefined): PersonTargetArgs {
  if (str('url') !== undefined) {
    if (str('report') !== undefined || str('profile') !== undefined) throw new UsageError('pass either --workspace and --url, or --report and --profile');
    return { workspaceId: uuidArg(str('workspace'), '--workspace'), url: str('url')! };
  }
  if (str('report') === undefined) throw new UsageError('pass --workspace WORKSPACE_ID --url PROFILE_URL, or --report REPORT_ID --profile PROFILE_ID');
  return { reportId: uuidArg(str('report'), '--report'), profileId: uuidArg(str('profile'), '--profile') };
}

async function resolvePersonTarget(rt: Runtime, args: PersonTargetArgs): Promise<{ workspaceId: string; target: PersonTarget }> {
  if ('url' in args) return { workspaceId: args.workspaceId, target: { url: args.url } };
  const report = await findAnyReport(rt.db, args.reportId);
  if (!report) throw new Failure(`no report ${args.reportId}`);
  return { workspaceId: report.workspace_id, target: { reportId: args.reportId, profileId: args.profileId } };
}
type Action = (runtime: Runtime, config: Config) => Promise<Outcome>;

function prepare(command: string, args: string[], values: Record<string, string | boolean | undefined>): Action {
  const str = (name: string) => values[name] as string | undefined;
  switch (command) {
    case 'workspace create': {
      const name = str('name')?.trim();
      if (!name || name.length > 200) throw new UsageError('--name NAME is required (1-200 characters)');
      return async (rt, config) => {
        const ws = await createWorkspace(rt.db, name, serviceClock(config).now());
        const json = {
          id: ws.id,
          name: ws.name,
          slug: ws.slug,
          status: ws.status,
          api_access: ws.api_access,
          created_at: ws.created_at.toISOString(),
        };
        return { json, text: `created workspace ${ws.id} "${ws.name}" (slug ${ws.slug})` };
      };
    }
    case 'workspace update': {
      const id = uuidArg(args[0], 'workspace ID');
      const changes: WorkspaceChanges = {};
      if (str('api-access') !== undefined) changes.api_access = onOff(str('api-access'), '--api-access');
      const perKey = limitArg(str('writes-per-key'), '--writes-per-key');
      const perWs = limitArg(str('writes-per-workspace'), '--writes-per-workspace');
      const rows = limitArg(str('profiles-per-minute'), '--profiles-per-minute');
      if (perKey !== undefined) changes.writes_per_minute_per_key = perKey;
      if (perWs !== undefined) changes.writes_per_minute_per_workspace = perWs;
      if (rows !== undefined) changes.submitted_profiles_per_minute_per_workspace = rows;
      const rawAllowance = str('scan-allowance');
      const allowance = rawAllowance === undefined ? undefined : parseAllowance(rawAllowance);
      if (rawAllowance !== undefined && allowance === undefined)
        throw new UsageError('--scan-allowance takes a number of profile scans per month (0 or more) or "unlimited"');
      if (Object.keys(changes).length === 0 && allowance === undefined)
        throw new UsageError('nothing to update: pass --api-access, --writes-per-key, --writes-per-workspace, --profiles-per-minute or --scan-allowance');
      return async (rt, config) => {
        const now = serviceClock(config).now();
        const ws = await changeWorkspace(rt.db, id, changes, now);
        if (!ws) throw new Failure(`no workspace ${id}`);
        // The allowance through its use-case (the one rule every interface shares), with this month's use.
        const scanAllowance = allowance === undefined ? await readScanAllowance(rt.db, id, now) : await setScanAllowance(rt.db, id, allowance, now);
        const json = {
          id: ws.id,
          name: ws.name,
          slug: ws.slug,
          api_access: ws.api_access,
          writes_per_minute_per_key: ws.writes_per_minute_per_key,
          writes_per_minute_per_workspace: ws.writes_per_minute_per_workspace,
          submitted_profiles_per_minute_per_workspace: ws.submitted_profiles_per_minute_per_workspace,
          scan_allowance: scanAllowance,
          updated_at: ws.updated_at.toISOString(),
        };
        const shown = { ...changes, ...(allowance === undefined ? {} : { scan_allowance: allowance ?? 'unlimited' }) };
        const month =
          `scan allowance ${scanAllowance.limit ?? 'unlimited'} per month; ${scanAllowance.used} used this month` +
          (scanAllowance.remaining === null ? '' : `, ${scanAllowance.remaining} left`) +
          ` (resets ${scanAllowance.resets_at})`;
        return { json, text: `updated workspace ${ws.id}: ${JSON.stringify(shown)}\n${month}` };
      };
    }
    case 'workspace usage': {
      const id = uuidArg(args[0], 'workspace ID');
      return async (rt, config) => {
        const now = serviceClock(config).now();
        const allowance = await readScanAllowance(rt.db, id, now).catch((error: unknown) => {
          if (error instanceof ApiError && error.status === 404) throw new Failure(`no workspace ${id}`);
          throw error;
        });
        const billed = await readBilledRecords(rt.db, id);
        const json = {
          id,
          scan_allowance: allowance,
          billed_records: billed.map((b) => ({ provider: b.provider, today: b.today, this_month: b.month, last_30_days: b.last30Days })),
        };
        const lines = [
          `scan allowance ${allowance.limit ?? 'unlimited'} per month; ${allowance.used} used this month` +
            (allowance.remaining === null ? '' : `, ${allowance.remaining} left`) +
            ` (resets ${allowance.resets_at})`,
          ...(billed.length === 0
            ? ['no provider records billed in the last 30 days']
            : billed.map((b) => `${b.provider}: ${b.today} records billed today, ${b.month} this month, ${b.last30Days} in the last 30 days`)),
        ];
        return { json, text: lines.join('\n') };
      };
    }
    case 'key create': {
      const workspaceId = uuidArg(str('workspace'), '--workspace');
      let scopes;
      try {
        scopes = parseScopes(str('scopes') ?? '*');
      } catch (error) {
        throw new UsageError(`--scopes: ${(error as Error).message}`);
      }
      const mode = (str('mode') ?? 'test') as KeyMode;
      if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode takes "test" or "live"');
      const userId = str('user') !== undefined ? uuidArg(str('user'), '--user') : undefined;
      return async (rt, config) => {
        let key;
        try {
          key = await issueKeyAsOperator({ db: rt.db, clock: serviceClock(config) }, { workspaceId, userId, scopes, mode });
        } catch (error) {
          throw new Failure((error as Error).message);
        }
        return { json: key, text: `created ${mode} key ${key.id} with scopes ${scopes.join(',')}\nsecret (shown once): ${key.secret}` };
      };
    }
    case 'key revoke': {
      const keyId = uuidArg(args[0], 'KEY_ID');
      return async (rt, config) => {
        const key = await revokeKeyAsOperator({ db: rt.db, clock: serviceClock(config) }, keyId);
        if (!key) throw new Failure(`no key ${keyId}`);
        return { json: { id: key.id, revoked_at: key.revoked_at.toISOString() }, text: `revoked key ${key.id}` };
      };
    }
    case 'report archive':
    case 'report unarchive': {
      const reportId = uuidArg(args[0], 'REPORT_ID');
      const archive = command === 'report archive';
      return async (rt, config) => {
        const report = await setReportArchived({ db: rt.db, workspaceId: null, now: serviceClock(config).now() }, reportId, archive);
        if (!report) throw new Failure(`no report ${reportId}`);
        return { json: presentReport(report, publicBaseUrlOf(config)), text: `${archive ? 'archived' : 'unarchived'} report ${reportId}` };
      };
    }
    case 'report share': {
      const reportId = uuidArg(args[0], 'REPORT_ID');
      const isPublic = onOff(str('public'), '--public');
      return async (rt, config) => {
        const report = await setReportSharing({ db: rt.db, workspaceId: null, now: serviceClock(config).now() }, reportId, isPublic);
        if (!report) throw new Failure(`no report ${reportId}`);
        const shown = presentReport(report, publicBaseUrlOf(config));
        return { json: shown, text: isPublic ? `report ${reportId} is public at ${shown.public_url}` : `report ${reportId} is private` };
      };
    }
    case 'report refresh': {
      const reportId = uuidArg(args[0], 'REPORT_ID');
      const profiles = str('profile')
        ?.split(',')
        .map((p) => uuidArg(p.trim(), '--profile'));
      if (profiles && values.failed) throw new UsageError('pass either --profile or --failed');
      const target: RefreshTarget = profiles ? { kind: 'people', profileIds: profiles } : values.failed ? { kind: 'unsuccessful' } : { kind: 'report' };
      return async (rt, config) => {
        const report = await findAnyReport(rt.db, reportId);
        if (!report) throw new Failure(`no report ${reportId}`);
        const clock = serviceClock(config);
        try {
          const { data } = await refreshReport({ db: rt.db, clock, queue: scanQueue(), workspaceId: report.workspace_id }, reportId, { target });
          const pending = data.people_requested - data.people_queued;
          return {
            json: data,
            text:
              `report ${reportId}: scans queued for ${data.people_queued} of ${data.people_requested} people` +
              (pending > 0 ? ` (${pending} already waiting)` : ''),
          };
        } catch (error) {
          if (error instanceof ApiError) throw new Failure(error.message);
          throw error;
        }
      };
    }
    case 'report schedule': {
      const reportId = uuidArg(args[0], 'REPORT_ID');
      const cadence = parseCadence(str('every'));
      if (!cadence) throw new UsageError('--every takes "off", "weekly" or "monthly"');
      return async (rt, config) => {
        const report = await findAnyReport(rt.db, reportId);
        if (!report) throw new Failure(`no report ${reportId}`);
        try {
          const schedule = await setRefreshSchedule({ db: rt.db, clock: serviceClock(config), workspaceId: report.workspace_id }, reportId, cadence);
          return {
            json: schedule,
            text: schedule.next_due_at
              ? `report ${reportId} is refreshed ${cadence}; next at ${schedule.next_due_at}`
              : `report ${reportId} has no refresh schedule`,
          };
        } catch (error) {
          if (error instanceof ApiError) throw new Failure(error.message);
          throw error;
        }
      };
    }
    case 'user create': {
      // A user of the web workspace, without a password: the printed one-time link sets it (no mail server is assumed).
      const workspaceId = uuidArg(str('workspace'), '--workspace');
      const role = str('role') ?? 'member';
      if (!isRole(role)) throw new UsageError('--role takes "owner", "admin", "member" or "viewer"');
      const name = str('name')?.trim();
      if (!name || name.length > 200) throw new UsageError('--name NAME is required (1-200 characters)');
      const email = str('email')?.trim() ?? null;
      return async (rt, config) => {
        let created;
        try {
          created = await createUserWithLink({ db: rt.db, clock: serviceClock(config) }, { workspaceId, role, name, email });
        } catch (error) {
          if (error instanceof ApiError) throw new Failure(error.message);
          if ((error as { code?: string }).code === '23503') throw new Failure(`no workspace ${workspaceId}`);
          throw error;
        }
        const url = `${config.publicBaseUrl}${accessLinkPath(created.token)}`;
        return {
          json: { user_id: created.user.id, workspace_id: workspaceId, role, name, email: created.user.email, sign_in_url: url },
          text: `created ${role} ${created.user.id} "${name}"\none-time sign-in link (sets the password; shown once, valid 3 days):\n  ${url}`,
        };
      };
    }
    case 'user link': {
      const userId = uuidArg(args[0], 'USER_ID');
      return async (rt, config) => {
        const link = await createSignInLink({ db: rt.db, clock: serviceClock(config) }, userId);
        if (!link) throw new Failure(`no user ${userId}`);
        const url = `${config.publicBaseUrl}${accessLinkPath(link.token)}`;
        return {
          json: { user_id: userId, sign_in_url: url },
          text: `one-time sign-in link for ${link.user.name} (sets a new password and ends their other sessions; shown once, valid 3 days):\n  ${url}`,
        };
      };
    }
    case 'erase-person':
    case 'export-person': {
      const target = personTargetArgs(str);
      const out = str('out');
      if (out !== undefined && command === 'erase-person') throw new UsageError('--out is for export-person');
      return async (rt, config) => {
        const { workspaceId, target: wanted } = await resolvePersonTarget(rt, target);
        const deps = { db: rt.db, media: await createMediaStore(config.media), clock: serviceClock(config) };
        try {
          if (command === 'export-person') {
            const exported = await exportPerson(deps, { kind: 'operator' }, workspaceId, wanted);
            if (out !== undefined) {
              await writeFile(out, JSON.stringify(exported, null, 2), { mode: 0o600 });
              return {
                json: { written: out, people: exported.people.length },
                text: `wrote what is stored about the person on ${exported.people.length} report(s) to ${out}`,
              };
            }
            return { json: exported, text: JSON.stringify(exported, null, 2) };
          }
          const erased = await erasePerson(deps, { kind: 'operator' }, workspaceId, wanted);
          return {
            json: { erased: erased.erased, blobs_deleted: erased.blobsDeleted, blobs_pending: erased.blobsPending },
            text:
              `erased the person from ${erased.erased} report(s); ${erased.blobsDeleted} media blob(s) deleted` +
              (erased.blobsPending > 0 ? `, ${erased.blobsPending} queued for the next maintenance run` : ''),
          };
        } catch (error) {
          if (error instanceof ApiError) throw new Failure(error.message);
          throw error;
        }
      };
    }
    case 'workspace delete': {
      const workspaceId = uuidArg(args[0], 'workspace ID');
      const confirm = str('confirm');
      if (confirm === undefined) throw new UsageError('--confirm NAME is required: the workspace name, exactly');
      return async (rt, config) => {
        const deps = { db: rt.db, media: await createMediaStore(config.media), clock: serviceClock(config) };
        try {
          const done = await deleteWorkspace(deps, { kind: 'operator' }, workspaceId, confirm);
          return {
            json: { deleted: workspaceId, blobs_deleted: done.blobsDeleted, blobs_pending: done.blobsPending },
            text: `deleted workspace ${workspaceId} and everything of it; ${done.blobsDeleted} media blob(s) deleted`,
          };
        } catch (error) {
          if (error instanceof ApiError) throw new Failure(error.message);
          throw error;
        }
      };
    }
    case 'audit list': {
      const workspaceId = str('workspace') === undefined ? null : uuidArg(str('workspace'), '--workspace');
      const limitRaw = str('limit') ?? '100';
      if (!/^\d{1,5}$/.test(limitRaw) || Number(limitRaw) < 1) throw new UsageError('--limit takes a whole number from 1 to 99999');
      return async (rt) => {
        const entries = await readAuditLog(rt.db, workspaceId, Number(limitRaw));
        const lines = entries.map(
          (e) =>
            `${e.at} ${e.action} ${e.object_kind}${e.object_id ? ` ${e.object_id}` : ''}${e.count !== null ? ` (${e.count})` : ''} by ${e.actor_kind}${e.actor_id ? ` ${e.actor_id}` : ''}${e.workspace_id ? ` in ${e.workspace_id}` : ''}`,
        );
        return { json: { entries }, text: lines.length === 0 ? 'no audit entries' : lines.join('\n') };
      };
    }
    case 'profile remove': {
      const reportId = uuidArg(args[0], 'REPORT_ID');
      const profileId = uuidArg(args[1], 'PROFILE_ID');
      return async (rt, config) => {
        const profile = await removePerson({ db: rt.db, workspaceId: null, now: serviceClock(config).now() }, reportId, profileId);
        if (!profile) throw new Failure(`no active profile ${profileId} on report ${reportId}`);
        return { json: { ...presentProfile(profile), status: 'removed' }, text: `removed profile ${profileId} from report ${reportId}` };
      };
    }
  }
  throw new UsageError(`unknown admin command "${command}"`);
}
