/**
 * Prometheus metrics on `/metrics` under the names the discovery API documents (docs/discovery-api.md), in a registry of their own so
 * several control planes can live in one process (tests) without clashing.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DiscoveryQuery } from './query-params';

export class ControlPlaneMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'agentfield_discovery_requests_total',
    help: 'Discovery requests by response format and outcome',
    labelNames: ['format', 'status'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'agentfield_discovery_request_duration_seconds',
    help: 'Discovery request duration',
    labelNames: ['format'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly cacheHits = new Counter({
    name: 'agentfield_discovery_cache_hits_total',
    help: 'Discovery requests answered from the agent cache',
    registers: [this.registry],
  });
  readonly cacheMisses = new Counter({
    name: 'agentfield_discovery_cache_misses_total',
    help: 'Discovery requests that read storage (TTL expiry, invalidation, cold start)',
    registers: [this.registry],
  });
  readonly cacheSize = new Gauge({
    name: 'agentfield_discovery_cache_size_bytes',
    help: 'Approximate bytes held by the discovery cache (agent data and rendered responses)',
    registers: [this.registry],
  });
  readonly filterUsage = new Counter({
    name: 'agentfield_discovery_filter_usage',
    help: 'Discovery requests using each kind of filter',
    labelNames: ['filter_type'] as const,
    registers: [this.registry],
  });
  readonly responseMemoHits = new Counter({
    name: 'agentfield_discovery_response_memo_hits_total',
    help: 'Discovery responses served from the rendered-response memo',
    registers: [this.registry],
  });
  readonly registeredAgents = new Gauge({
    name: 'agentfield_registered_agents',
    help: 'Registered agents in the last snapshot',
    registers: [this.registry],
  });
  readonly registrations = new Counter({
    name: 'agentfield_registrations_total',
    help: 'Registration API calls by operation and outcome',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });
  readonly executions = new Counter({
    name: 'agentfield_executions_total',
    help: 'Execution API calls by outcome',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  countFilters(q: DiscoveryQuery): void {
    if (q.agentIds.length) this.filterUsage.inc({ filter_type: 'agent' });
    if (q.reasoner !== undefined) this.filterUsage.inc({ filter_type: 'reasoner' });
    if (q.skill !== undefined) this.filterUsage.inc({ filter_type: 'skill' });
    if (q.tags.length) this.filterUsage.inc({ filter_type: 'tag' });
  }
}
