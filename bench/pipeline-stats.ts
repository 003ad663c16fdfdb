/**
 * What the scan pipeline benchmark observes in PostgreSQL over a measured
 * window, per scan item: transactions and rows (pg_stat_database),
 * statements (pg_stat_statements, when loaded; top-level statements, BEGIN
 * and COMMIT included), the tables read most, what the database's sessions
 * were doing (pg_stat_activity samples: running, waiting on a lock, idle in
 * a transaction) and CPU time of the worker processes and of PostgreSQL.
 *
 * The benchmark's own statements run as the observer role (when statements
 * are counted): pg_stat_statements leaves them out by `userid`, and their
 * number is subtracted from the transactions.
 */
import pg from 'pg';
import { processTicks, readServer, serverTicksBetween, TAG, ticksToMs, type BenchServer, type ScenarioDatabase } from './pipeline-setup.js';

/** A connection of the benchmark to a scenario's database; counts its own statements. */
export class Observer {
  statementsSent = 0;
  private constructor(
    private readonly client: pg.Client,
    readonly database: ScenarioDatabase,
  ) {}

  static async open(database: ScenarioDatabase): Promise<Observer> {
    const client = new pg.Client({ connectionString: database.observerUrl, application_name: 'bench:pipeline' });
    await client.connect();
    return new Observer(client, database);
  }

  async query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
    this.statementsSent++;
    return (await this.client.query<R>(`${TAG} ${text}`, params)).rows;
  }

  async one<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R> {
    const rows = await this.query<R>(text, params);
    if (rows.length !== 1) throw new Error(`expected one row from: ${text}`);
    return rows[0];
  }

  close(): Promise<void> {
    return this.client.end().catch(() => {});
  }

  /** The process id of this session's backend (its CPU is the benchmark's, not the service's). */
  async backendPid(): Promise<number> {
    return (await this.one<{ pid: number }>(`select pg_backend_pid() as pid`)).pid;
  }

  /** Item counts by status, for one report or every report. */
  async itemCounts(reportId?: string): Promise<Record<string, number>> {
    const rows = await this.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from scan_items ${reportId ? 'where report_id = $1' : ''} group by status order by status`,
      reportId ? [reportId] : [],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Run counts by status, for one report or every report. */
  async runCounts(reportId?: string): Promise<Record<string, number>> {
    const rows = await this.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from scan_runs ${reportId ? 'where report_id = $1' : ''} group by status order by status`,
      reportId ? [reportId] : [],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}

export function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

interface DatabaseCounters {
  xacts: number;
  rowsRead: number;
  rowsWritten: number;
}

async function databaseCounters(o: Observer): Promise<DatabaseCounters> {
  const r = await o.one<{ xacts: string; rows_read: string; rows_written: string }>(
    `select xact_commit + xact_rollback as xacts, tup_returned + tup_fetched as rows_read,
            tup_inserted + tup_updated + tup_deleted as rows_written
       from pg_stat_database where datname = current_database()`,
  );
  return { xacts: Number(r.xacts), rowsRead: Number(r.rows_read), rowsWritten: Number(r.rows_written) };
}

interface StatementCounters {
  query: string;
  calls: number;
  ms: number;
  /** Planning time and plans made (zero unless pg_stat_statements.track_planning is on: the embedded server turns it on). */
  planMs: number;
  plans: number;
  /** Shared buffers the statement touched (hit or read): what it walked, whatever the cache held. */
  blocks: number;
}

async function statementCounters(o: Observer, observerRole: string): Promise<Map<string, StatementCounters>> {
  const rows = await o.query<{ id: string; query: string; calls: string; ms: number; plan_ms: number; plans: string; blocks: string }>(
    `select queryid::text || '/' || userid::text || '/' || toplevel::text as id, query, calls, total_exec_time as ms, total_plan_time as plan_ms, plans,
            shared_blks_hit + shared_blks_read as blocks
       from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())
        and userid <> (select oid from pg_roles where rolname = $1)`,
    [observerRole],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      { query: r.query, calls: Number(r.calls), ms: Number(r.ms), planMs: Number(r.plan_ms), plans: Number(r.plans), blocks: Number(r.blocks) },
    ]),
  );
}

interface TableCounters {
  seq: number;
  seqRows: number;
  idxRows: number;
  inserted: number;
  updated: number;
  hotUpdated: number;
  deleted: number;
}

/** Each table's reads and writes; a TOAST table's writes are named after the table it belongs to ("reports (toast)"). */
async function tableCounters(o: Observer): Promise<Map<string, TableCounters>> {
  const rows = await o.query<{ name: string; seq: string; seq_rows: string; idx_rows: string; ins: string; upd: string; hot: string; del: string }>(
    `select coalesce(owner.relname || ' (toast)', s.relname) as name, coalesce(s.seq_scan, 0) as seq, coalesce(s.seq_tup_read, 0) as seq_rows,
            coalesce(s.idx_tup_fetch, 0) as idx_rows, s.n_tup_ins as ins, s.n_tup_upd as upd, s.n_tup_hot_upd as hot, s.n_tup_del as del
       from pg_stat_all_tables s
       left join pg_class owner on owner.reltoastrelid = s.relid
      where s.schemaname = 'public' or (s.schemaname = 'pg_toast' and owner.relnamespace = 'public'::regnamespace)`,
  );
  return new Map(
    rows.map((r) => [
      r.name,
      {
        seq: Number(r.seq),
        seqRows: Number(r.seq_rows),
        idxRows: Number(r.idx_rows),
        inserted: Number(r.ins),
        updated: Number(r.upd),
        hotUpdated: Number(r.hot),
        deleted: Number(r.del),
      },
    ]),
  );
}

export interface WindowStats {
  /** Transactions (commits + rollbacks) per item, the benchmark's own left out. */
  transactions_per_item: number;
  rows_read_per_item: number;
  rows_written_per_item: number;
  /** Top-level statements per item (pg_stat_statements), null when it is not loaded. */
  statements_per_item: number | null;
  /** Of which BEGIN / COMMIT / ROLLBACK. */
  transaction_control_per_item: number | null;
  /** Execution time of those statements in PostgreSQL (lock waits included), and of all but the report-row lock. */
  statement_ms_per_item: { all: number; without_report_lock: number; /** Planning them (0 when track_planning is off). */ planning: number } | null;
  /** The statements that took the most execution time in PostgreSQL. */
  top_statements: Array<{ query: string; calls_per_item: number; exec_ms_per_item: number; mean_ms: number; blocks_per_call: number }>;
  /** The statements that took the most planning time (track_planning), with how many of their calls were planned. */
  top_planned: Array<{ query: string; plan_ms_per_item: number; plans_per_call: number }>;
  table_reads_per_item: Array<{ table: string; seq_scans: number; seq_rows: number; index_rows: number }>;
  /** The tables written most: rows inserted, updated (of them HOT, which write no index entry) and deleted per item. */
  table_writes_per_item: Array<{ table: string; inserted: number; updated: number; hot_updated: number; deleted: number }>;
  /** Average number of this database's sessions in each state over the samples. */
  sessions: {
    samples: number;
    active: number;
    waiting_on_lock: number;
    idle_in_transaction: number;
    /** Of the sessions idle in a transaction, by the start of the last statement they ran (its first 80 characters). */
    idle_in_transaction_after: Record<string, number>;
    lock_waits_by_relation: Record<string, number>;
  };
  cpu: {
    /** CPU of the worker processes, together. */
    worker_ms_per_item: number | null;
    postgres_ms_per_item: number | null;
    /** Of it, by kind of process (the embedded server only): client backends, autovacuum workers, the WAL writer, other background processes, and processes that exited during the window. */
    postgres_by_process_ms_per_item: Record<string, number> | null;
    /** What the PostgreSQL figure covers. */
    postgres_scope: string;
    /** The benchmark's own session (the release of the held items, the polls, the samples), left out of `postgres_ms_per_item` (the embedded server only). */
    benchmark_session_ms_per_item: number | null;
    worker_cpu_percent_of_one_core: number | null;
    postgres_cpu_percent_of_one_core: number | null;
  };
}

/**
 * A measured window: `sample()` during it (sessions, and, on a server the
 * bench did not start, the CPU of this database's backends), `finish(items,
 * seconds)` at its end.
 */
export async function startWindow(o: Observer, server: BenchServer, workerPids: number[]) {
  const db = await databaseCounters(o);
  const observerRole = o.database.statements?.observerRole ?? null;
  const statements = observerRole ? await statementCounters(o, observerRole) : null;
  const tables = await tableCounters(o);
  const sentBefore = o.statementsSent;
  const workerTicks = () => {
    const ticks = workerPids.map(processTicks);
    return ticks.every((t) => t !== null) ? ticks.reduce((a, b) => a + b, 0) : null;
  };
  const workerBefore = workerTicks();
  // The benchmark's own statements run in this session; its backend's CPU is left out of the server's.
  const observerPid = await o.backendPid();
  const serverBefore = server.postmasterPid === null ? null : readServer(server.postmasterPid);
  // Backends of this database (when the bench did not start the server): ticks at first and last sight.
  const backends = new Map<number, { first: number; last: number }>();
  let backendsSeen = false;
  const sessions = {
    samples: 0,
    active: 0,
    waiting_on_lock: 0,
    idle_in_transaction: 0,
    idle_in_transaction_after: {} as Record<string, number>,
    lock_waits_by_relation: {} as Record<string, number>,
  };

  const sample = async (initial = false) => {
    const rows = await o.query<{ pid: number; state: string | null; wait_event_type: string | null; relation: string | null; query: string | null }>(
      `select a.pid, a.state, a.wait_event_type, case when a.state = 'idle in transaction' then a.query end as query,
              (select l.relation::regclass::text from pg_locks l where l.pid = a.pid and not l.granted limit 1) as relation
         from pg_stat_activity a where a.datname = current_database() and a.pid <> pg_backend_pid()`,
    );
    if (server.postmasterPid === null) {
      for (const r of rows) {
        const ticks = processTicks(r.pid);
        if (ticks === null) continue;
        backendsSeen = true;
        const seen = backends.get(r.pid);
        if (seen) seen.last = ticks;
        // A backend first seen after the start began during the window: all its ticks count.
        else backends.set(r.pid, { first: initial ? ticks : 0, last: ticks });
      }
    }
    if (initial) return;
    sessions.samples++;
    for (const r of rows) {
      if (r.state === 'active') sessions.active++;
      if (r.state === 'idle in transaction') {
        sessions.idle_in_transaction++;
        const after = (r.query ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);
        sessions.idle_in_transaction_after[after] = (sessions.idle_in_transaction_after[after] ?? 0) + 1;
      }
      if (r.wait_event_type === 'Lock') {
        sessions.waiting_on_lock++;
        const rel = r.relation ?? 'transaction/other';
        sessions.lock_waits_by_relation[rel] = (sessions.lock_waits_by_relation[rel] ?? 0) + 1;
      }
    }
  };
  await sample(true);

  const finish = async (items: number, seconds: number): Promise<WindowStats> => {
    await sample();
    const workerAfter = workerTicks();
    const serverAfter = server.postmasterPid === null ? null : readServer(server.postmasterPid);
    let postgresTicks: number | null = null;
    let byKind: Record<string, number> | null = null;
    let benchmarkTicks: number | null = null;
    let scope: string;
    if (serverBefore !== null && serverAfter !== null) {
      const between = serverTicksBetween(serverBefore, serverAfter, [observerPid]);
      postgresTicks = between.all;
      byKind = between.byKind;
      benchmarkTicks = between.leftOut;
      scope = "the whole embedded server (postmaster, backends, background processes) but the benchmark's own session";
    } else if (server.postmasterPid === null && backendsSeen) {
      postgresTicks = [...backends.values()].reduce((a, b) => a + (b.last - b.first), 0);
      scope = "this database's backends on DATABASE_URL's server, sampled (background processes and ticks after a backend's last sample not counted)";
    } else {
      scope = 'not measured (the server is not on this machine)';
    }
    const sent = o.statementsSent - sentBefore;
    const statementsAfter = observerRole ? await statementCounters(o, observerRole) : null;
    // pg_stat_database and table counters reach the views up to a second after a backend goes idle.
    await new Promise((r) => setTimeout(r, 2000));
    const dbAfter = await databaseCounters(o);
    const tablesAfter = await tableCounters(o);
    const per = (n: number) => round(n / Math.max(1, items));

    let statementsPerItem: number | null = null;
    let controlPerItem: number | null = null;
    let statementMs: WindowStats['statement_ms_per_item'] = null;
    const top: WindowStats['top_statements'] = [];
    const topPlanned: WindowStats['top_planned'] = [];
    if (statements && statementsAfter) {
      const deltas = [...statementsAfter].map(([id, a]) => {
        const b = statements.get(id);
        return {
          query: a.query,
          calls: a.calls - (b?.calls ?? 0),
          ms: a.ms - (b?.ms ?? 0),
          planMs: a.planMs - (b?.planMs ?? 0),
          plans: a.plans - (b?.plans ?? 0),
          blocks: a.blocks - (b?.blocks ?? 0),
        };
      });
      statementsPerItem = per(deltas.reduce((s, d) => s + d.calls, 0));
      controlPerItem = per(deltas.filter((d) => /^\s*(begin|commit|rollback)\b/i.test(d.query)).reduce((s, d) => s + d.calls, 0));
      const ms = (list: typeof deltas) => list.reduce((s, d) => s + d.ms, 0) / Math.max(1, items);
      statementMs = {
        all: round(ms(deltas), 1),
        without_report_lock: round(ms(deltas.filter((d) => !/from reports where id = \$1 for no key update/i.test(d.query))), 1),
        planning: round(deltas.reduce((s, d) => s + d.planMs, 0) / Math.max(1, items), 1),
      };
      for (const d of [...deltas].sort((x, y) => y.planMs - x.planMs).slice(0, 10)) {
        if (d.calls <= 0 || d.planMs <= 0) continue;
        topPlanned.push({
          query: d.query.replace(/\s+/g, ' ').slice(0, 160),
          plan_ms_per_item: round(d.planMs / Math.max(1, items), 3),
          plans_per_call: round(d.plans / d.calls, 2),
        });
      }
      deltas.sort((x, y) => y.ms - x.ms);
      for (const d of deltas.slice(0, 40)) {
        if (d.calls <= 0) continue;
        top.push({
          query: d.query.replace(/\s+/g, ' ').slice(0, 160),
          calls_per_item: per(d.calls),
          exec_ms_per_item: round(d.ms / Math.max(1, items), 3),
          mean_ms: round(d.ms / d.calls, 3),
          blocks_per_call: round(d.blocks / d.calls, 1),
        });
      }
    }
    const reads = [...tablesAfter].map(([name, a]) => {
      const b = tables.get(name) ?? { seq: 0, seqRows: 0, idxRows: 0 };
      return { table: name, seq_scans: per(a.seq - b.seq), seq_rows: per(a.seqRows - b.seqRows), index_rows: per(a.idxRows - b.idxRows) };
    });
    reads.sort((x, y) => y.seq_rows + y.index_rows - (x.seq_rows + x.index_rows));
    const writes = [...tablesAfter].map(([name, a]) => {
      const b = tables.get(name) ?? { inserted: 0, updated: 0, hotUpdated: 0, deleted: 0 };
      return {
        table: name,
        inserted: per(a.inserted - b.inserted),
        updated: per(a.updated - b.updated),
        hot_updated: per(a.hotUpdated - b.hotUpdated),
        deleted: per(a.deleted - b.deleted),
      };
    });
    writes.sort((x, y) => y.inserted + y.updated + y.deleted - (x.inserted + x.updated + x.deleted));
    const avg = (n: number) => round(n / Math.max(1, sessions.samples));
    const workerTicksUsed = workerBefore !== null && workerAfter !== null ? workerAfter - workerBefore : null;
    const percent = (ticks: number | null) => (ticks === null ? null : round((ticksToMs(ticks) / 1000 / seconds) * 100, 0));
    return {
      // Each of the benchmark's own statements (sampling, polling) is a transaction of its own.
      transactions_per_item: per(dbAfter.xacts - db.xacts - sent),
      rows_read_per_item: per(dbAfter.rowsRead - db.rowsRead),
      rows_written_per_item: per(dbAfter.rowsWritten - db.rowsWritten),
      statements_per_item: statementsPerItem,
      transaction_control_per_item: controlPerItem,
      statement_ms_per_item: statementMs,
      top_statements: top,
      top_planned: topPlanned,
      table_reads_per_item: reads.slice(0, 6),
      table_writes_per_item: writes.filter((w) => w.inserted + w.updated + w.deleted > 0).slice(0, 12),
      sessions: {
        samples: sessions.samples,
        active: avg(sessions.active),
        waiting_on_lock: avg(sessions.waiting_on_lock),
        idle_in_transaction: avg(sessions.idle_in_transaction),
        idle_in_transaction_after: Object.fromEntries(Object.entries(sessions.idle_in_transaction_after).map(([k, v]) => [k, avg(v)])),
        lock_waits_by_relation: Object.fromEntries(Object.entries(sessions.lock_waits_by_relation).map(([k, v]) => [k, avg(v)])),
      },
      cpu: {
        worker_ms_per_item: workerTicksUsed === null ? null : round(ticksToMs(workerTicksUsed) / Math.max(1, items)),
        postgres_ms_per_item: postgresTicks === null ? null : round(ticksToMs(postgresTicks) / Math.max(1, items)),
        postgres_by_process_ms_per_item:
          byKind === null ? null : Object.fromEntries(Object.entries(byKind).map(([kind, ticks]) => [kind, round(ticksToMs(ticks) / Math.max(1, items))])),
        postgres_scope: scope,
        benchmark_session_ms_per_item: benchmarkTicks === null ? null : round(ticksToMs(benchmarkTicks) / Math.max(1, items)),
        worker_cpu_percent_of_one_core: percent(workerTicksUsed),
        postgres_cpu_percent_of_one_core: percent(postgresTicks),
      },
    };
  };
  return { sample: () => sample(), finish };
}
