/**
 * Prometheus metrics on `/metrics` under the names the discovery API documents (docs/discovery-api.md), in a registry of their own so
 * several control planes can live in one process (tests) without clashing.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DiscoveryQuery } from './query-params';

export class ControlPlaneMetrics {
  readonly registry = new Registry();
  readonly requests = this.counter(
    'agentfield_discovery_requests_total',
    'Discovery requests by response format and outcome',
    ['format', 'status'],
  );
  readonly duration = new Histogram({
    name: 'agentfield_discovery_request_duration_seconds',
    help: 'Discovery request duration',
    labelNames: ['format'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly cacheHits = this.counter(
    'agentfield_discovery_cache_hits_total',
    'Discovery requests answered from the agent cache',
  );
  readonly cacheMisses = this.counter(
    'agentfield_discovery_cache_misses_total',
    'Discovery requests that read storage (TTL expiry, invalidation, cold start)',
  );
  readonly cacheSize = this.gauge(
    'agentfield_discovery_cache_size_bytes',
    'Approximate bytes held by the discovery cache (agent data and rendered responses)',
  );
  readonly filterUsage = this.counter(
    'agentfield_discovery_filter_usage',
    'Discovery requests using each kind of filter',
    ['filter_type'],
  );
  readonly responseMemoHits = this.counter(
    'agentfield_discovery_response_memo_hits_total',
    'Discovery responses served from the rendered-response memo',
  );
  readonly registeredAgents = this.gauge('agentfield_registered_agents', 'Registered agents in the last snapshot');
  readonly registrations = this.counter(
    'agentfield_registrations_total',
    'Registration API calls by operation and outcome',
    ['operation', 'status'],
  );
  readonly executions = this.counter('agentfield_executions_total', 'Execution API calls by outcome', ['status']);

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  countFilters(q: DiscoveryQuery): void {
    if (q.agentIds.length) this.filterUsage.inc({ filter_type: 'agent' });
    if (q.reasoner !== undefined) this.filterUsage.inc({ filter_type: 'reasoner' });
    if (q.skill !== undefined) this.filterUsage.inc({ filter_type: 'skill' });
    if (q.tags.length) this.filterUsage.inc({ filter_type: 'tag' });
  }

  /** A counter in this instance's own registry (so control planes in one process do not clash). */
  private counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: [this.registry] });
  }
}
