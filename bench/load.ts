/**
 * Load generation with autocannon: runs one or more lanes at once (a lane is
 * one autocannon instance with its own request builder, e.g. one report per
 * lane for imports) for a fixed duration or a fixed number of requests, and
 * measures throughput and latency. Latencies are recorded here in
 * microseconds from autocannon's per-response timings (its own histogram has
 * 1 ms resolution, too coarse for sub-millisecond baselines).
 */
import { createHistogram } from 'node:perf_hooks';
import autocannon, { type Request } from 'autocannon';

export interface RequestSpec {
  /** Origin, e.g. http://127.0.0.1:1234. */
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Builds a fresh body and extra headers for every request (unique writes). */
  next?: () => { headers: Record<string, string>; body: string };
  /** Rows the service admitted, read from a response (imports). */
  admittedRows?: (status: number, body: string) => number;
}

export interface Lane {
  spec: RequestSpec;
  connections: number;
}

export type Stop = { seconds: number } | { requestsPerLane: number };

export interface Measurement {
  responses: number;
  ok: number;
  seconds: number;
  /** Completed 2xx responses per second. */
  rps: number;
  medianMs: number;
  p99Ms: number;
  /** Responses by status code, plus connection errors and timeouts. */
  statuses: Record<string, number>;
  errors: number;
  rowsAdmitted: number;
}

function request(spec: RequestSpec, onRows: (rows: number) => void): Request {
  const next = spec.next;
  const admitted = spec.admittedRows;
  return {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    ...(next
      ? {
          setupRequest: (req) => {
            const fresh = next();
            return { ...req, headers: { ...spec.headers, ...fresh.headers }, body: fresh.body };
          },
        }
      : {}),
    ...(admitted ? { onResponse: (status: number, body: string) => onRows(admitted(status, body)) } : {}),
  };
}

/** Runs all lanes concurrently until `stop`; returns the combined measurement. */
export async function measure(lanes: Lane[], stop: Stop): Promise<Measurement> {
  const latencyUs = createHistogram();
  const statuses: Record<string, number> = {};
  let rowsAdmitted = 0;
  let responses = 0;
  const started = performance.now();
  const results = await Promise.all(
    lanes.map((lane) => {
      const instance = autocannon({
        url: lane.spec.origin,
        connections: lane.connections,
        timeout: 30,
        requests: [request(lane.spec, (rows) => (rowsAdmitted += rows))],
        ...('seconds' in stop ? { duration: stop.seconds } : { amount: stop.requestsPerLane * lane.connections }),
      });
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        responses++;
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
        if (statusCode >= 200 && statusCode < 300) latencyUs.record(Math.max(1, Math.round(responseTime * 1000)));
      });
      return instance;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  const ok = latencyUs.count;
  return {
    responses,
    ok,
    seconds,
    rps: ok / seconds,
    medianMs: ok > 0 ? latencyUs.percentile(50) / 1000 : NaN,
    p99Ms: ok > 0 ? latencyUs.percentile(99) / 1000 : NaN,
    statuses,
    errors,
    rowsAdmitted,
  };
}

/** One request outside the measurement, e.g. to probe whether an endpoint exists. */
export async function probe(spec: RequestSpec): Promise<{ status: number; body: string }> {
  const fresh = spec.next?.();
  const res = await fetch(spec.origin + spec.path, {
    method: spec.method,
    headers: { ...spec.headers, ...fresh?.headers },
    body: fresh?.body,
  });
  return { status: res.status, body: await res.text() };
}
