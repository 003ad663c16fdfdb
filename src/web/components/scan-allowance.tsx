/**
 * The workspace's scan allowance on the pages (docs/operations.md, "Scan
 * allowance"): its own section in the settings, read-only for every role
 * (the operator sets it with `profile-scan admin workspace update`), and a
 * line in the previews of a new report and of adding people saying how much
 * the commit would use and how much is left. The numbers come from the
 * use-case (use-cases/scan-allowance.ts); nothing here counts.
 */
import { allowanceAdmits, type AllowanceStatus } from '../../domain/scan-allowance.js';
import type { ProviderUsage } from '../../use-cases/provider-usage.js';
import { Notice, When } from './layout.js';

const scans = (n: number) => `${n} profile scan${n === 1 ? '' : 's'}`;

export function ScanAllowanceSection(props: { allowance: AllowanceStatus }) {
  const a = props.allowance;
  return (
    <section class="card" aria-labelledby="allowance-heading" id="scan-allowance">
      <h2 id="allowance-heading">Scan allowance</h2>
      <dl class="facts">
        <dt>Per calendar month (UTC)</dt>
        <dd>{a.limit === null ? 'Unlimited' : scans(a.limit)}</dd>
        <dt>Used this month</dt>
        <dd>{scans(a.used)}</dd>
        <dt>Left this month</dt>
        <dd>{a.remaining === null ? 'Unlimited' : scans(a.remaining)}</dd>
        <dt>Starts again</dt>
        <dd>
          <When at={a.resets_at} />
        </dd>
      </dl>
      <p class="hint">
        One profile scan is one person queued for scanning (both of their scans together); the company page is free, and a person already waiting in a queued
        scan costs nothing again. A report or an addition that would go over the allowance is refused whole. The allowance is set by the service's operator.
      </p>
    </section>
  );
}

/** The collectors' names (Collector.name) as people say them. */
const PROVIDER_LABELS: Record<string, string> = { brightdata: 'Bright Data', http_provider: 'HTTP provider (bridge)' };

const records = (n: number) => `${n.toLocaleString('en')} record${n === 1 ? '' : 's'}`;

/**
 * Records a data provider billed for the workspace's scans (owners and admins
 * only; use-cases/provider-usage.ts). Scans of test keys and of the
 * simulator bill nothing.
 */
export function BilledRecordsSection(props: { usage: ProviderUsage[] }) {
  return (
    <section class="card" aria-labelledby="billed-heading" id="billed-records">
      <h2 id="billed-heading">Provider records billed</h2>
      {props.usage.length === 0 ? (
        <p>No data provider has billed records for this workspace in the last 30 days.</p>
      ) : (
        props.usage.map((u) => (
          <>
            <h3>{PROVIDER_LABELS[u.provider] ?? u.provider}</h3>
            <dl class="facts">
              <dt>Today (UTC)</dt>
              <dd>{records(u.today)}</dd>
              <dt>This month</dt>
              <dd>{records(u.month)}</dd>
              <dt>Last 30 days</dt>
              <dd>{records(u.last30Days)}</dd>
            </dl>
          </>
        ))
      )}
      <p class="hint">
        A data provider bills per record it returns: a person's profile, each of their posts, the company page. Records are counted when a scan's result is
        stored.
      </p>
    </section>
  );
}

/** For a preview: `wouldUse` is the most the commit would use (people it would queue). */
export function ScanAllowancePreview(props: { allowance: AllowanceStatus; wouldUse: number }) {
  const a = props.allowance;
  const over = !allowanceAdmits(a, props.wouldUse);
  return (
    <div id="allowance-preview">
      <dl class="facts">
        <dt>Scan allowance</dt>
        <dd>
          {a.remaining === null
            ? `This would use ${scans(props.wouldUse)}; the workspace's allowance is unlimited.`
            : `This would use ${scans(props.wouldUse)} of the ${scans(a.remaining)} left this month (${a.limit} per month; ${a.used} used).`}
        </dd>
      </dl>
      {over ? (
        <Notice kind="error">
          This is more than the workspace's scan allowance has left this month, so it would be refused. Remove people, or ask the operator to raise the
          allowance.
        </Notice>
      ) : null}
    </div>
  );
}
