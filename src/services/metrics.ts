// Prometheus metrics (prom-client): calls per route, transport and outcome, HTTP request latency, decisions and cache
// hits, index lag and queue depth.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

type CallLabel = 'surface' | 'route' | 'transport' | 'outcome';
const CALL_LABELS: CallLabel[] = ['surface', 'route', 'transport', 'outcome'];

export interface IndexProgress {
  latest(): Promise<number>;
  applied(): Promise<number>;
  pending(): Promise<number>;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'surface' | 'method' | 'route' | 'status'>;
  private readonly calls: Counter<CallLabel>;
  private readonly callTimes: Histogram<CallLabel>;
  /** Each label set's children, looked up once: prom-client hashes the labels on every call otherwise. */
  private readonly callChildren = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  private readonly decisions: Counter<'allowed' | 'cached'>;
  private readonly units: Counter<'structure'>;
  private readonly unitTuples: Counter<'structure'>;

  constructor(progress: IndexProgress) {
    collectDefaultMetrics({ register: this.registry, prefix: 'authz_' });
    this.requests = new Histogram({
      name: 'authz_http_request_duration_seconds',
      help: 'HTTP requests by surface, method, registered route and status',
      labelNames: ['surface', 'method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.calls = new Counter({
      name: 'authz_calls_total',
      help: 'Calls of registry routes on every transport, by surface, route id, transport and outcome (ok or the error code)',
      labelNames: CALL_LABELS,
      registers: [this.registry],
    });
    this.callTimes = new Histogram({
      name: 'authz_call_duration_seconds',
      help: 'Time the pipeline took per call, by surface, route id, transport and outcome',
      labelNames: CALL_LABELS,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.decisions = new Counter({
      name: 'authz_check_decisions_total',
      help: 'can decisions by answer and whether the decision cache answered',
      labelNames: ['allowed', 'cached'],
      registers: [this.registry],
    });
    this.units = new Counter({
      name: 'authz_index_units_total',
      help: 'Units of index work this process applied, by whether they held the structure lease',
      labelNames: ['structure'],
      registers: [this.registry],
    });
    this.unitTuples = new Counter({
      name: 'authz_index_unit_tuples_total',
      help: 'Tuples and grants in the units of index work this process applied',
      labelNames: ['structure'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'authz_index_lag_revisions',
      help: 'Committed revisions the index has not applied yet (latest - applied)',
      registers: [this.registry],
      async collect() {
        this.set(Math.max(0, (await progress.latest()) - (await progress.applied())));
      },
    });
    new Gauge({
      name: 'authz_index_queue_depth',
      help: 'Change-log entries waiting to be applied',
      registers: [this.registry],
      async collect() {
        this.set(await progress.pending());
      },
    });
  }

  request(surface: string, method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ surface, method, route, status: String(status) }, seconds);
  }

  call(surface: string, route: string, transport: string, outcome: string, seconds: number): void {
    const key = `${surface} ${route} ${transport} ${outcome}`;
    let child = this.callChildren.get(key);
    if (!child) {
      const labels = { surface, route, transport, outcome };
      child = { count: this.calls.labels(labels), time: this.callTimes.labels(labels) };
      this.callChildren.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  }

  decision(allowed: boolean, cached: boolean): void {
    this.decisions.inc({ allowed: String(allowed), cached: String(cached) });
  }

  indexUnit(structure: boolean, tuples: number): void {
    this.units.inc({ structure: String(structure) });
    this.unitTuples.inc({ structure: String(structure) }, tuples);
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
