/**
 * The Grafana dashboard of the model-call metrics (deploy/grafana/agent-flows-model-calls.json):
 * every PromQL expression and template query names only series the worker exports
 * (flows/lib/activities/model-metrics.ts: the counters, and the latency histogram's _bucket, _sum
 * and _count) and only labels those series carry. A renamed metric or label fails here, not on a
 * blank panel in production.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelMetric } from '../../flows/lib/activities/model-metrics';
import { PROJECT_ROOT } from '../../plumbing/project-root';

const DASHBOARD = path.join(PROJECT_ROOT, 'deploy', 'grafana', 'agent-flows-model-calls.json');

// Labels every series has (recordModelCall's tags, and the SDK activity meter's own).
const COMMON = ['flow', 'task', 'backend', 'model', 'namespace', 'taskQueue', 'activityType'];
/** Each exported series and the labels it carries. */
function exportedSeries(): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const name of Object.values(ModelMetric)) series.set(name, new Set(COMMON));
  series.get(ModelMetric.calls)!.add('outcome').add('error_kind');
  const latency = [...COMMON, 'outcome'];
  series.delete(ModelMetric.latency);
  series.set(`${ModelMetric.latency}_bucket`, new Set([...latency, 'le']));
  series.set(`${ModelMetric.latency}_sum`, new Set(latency));
  series.set(`${ModelMetric.latency}_count`, new Set(latency));
  return series;
}

const FUNCTIONS = new Set([
  'sum',
  'rate',
  'increase',
  'histogram_quantile',
  'avg',
  'max',
  'min',
  'count',
  'label_values',
]);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);

/** The series an expression reads and the labels it uses (in selectors, and in by/without clauses). */
export function readPromql(expr: string): {
  series: string[];
  selectorLabels: Array<[string, string]>;
  groupLabels: string[];
} {
  const series: string[] = [];
  const selectorLabels: Array<[string, string]> = [];
  const groupLabels: string[] = [];
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  rest = rest.replace(/\b(by|without)\s*\(([^)]*)\)/g, (_, _kw, labels: string) => {
    groupLabels.push(
      ...labels
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    );
    return ' ';
  });
  // label_values(metric, label): the template variables' queries.
  rest = rest.replace(/label_values\(\s*([A-Za-z_:][\w:]*)\s*,\s*(\w+)\s*\)/g, (_, metric: string, label: string) => {
    series.push(metric);
    selectorLabels.push([metric, label]);
    return ' ';
  });
  rest = rest.replace(/([A-Za-z_:][\w:]*)?\s*\{([^}]*)\}/g, (_, metric: string | undefined, matchers: string) => {
    if (!metric) throw new Error(`a selector without a metric name: ${expr}`);
    series.push(metric);
    for (const m of matchers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      selectorLabels.push([metric, m.split(/\s*(?:=~|!~|!=|=)\s*/)[0]!]);
    }
    return ' ';
  });
  rest = rest.replace(/\[[^\]]*\]/g, ' ');
  for (const match of rest.matchAll(/([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, word, call] = match;
    if (call) {
      if (!FUNCTIONS.has(word!)) throw new Error(`unknown function ${word} in ${expr}`);
    } else if (!KEYWORDS.has(word!) && !/^\d/.test(word!) && !/^e\d+$/.test(word!)) {
      series.push(word!);
    }
  }
  return { series, selectorLabels, groupLabels };
}

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
}

describe('the model-calls Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[];
    templating: { list: Array<{ type: string; query: unknown }> };
  };
  const expressions = [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
    ...dashboard.templating.list
      .filter((v) => v.type === 'query')
      .map((v) => ({ where: 'template', expr: (v.query as { query: string }).query })),
  ];

  it('reads only series the worker exports, with labels those series carry', () => {
    const exported = exportedSeries();
    expect(expressions.length).toBeGreaterThan(5);
    for (const { where, expr } of expressions) {
      const { series, selectorLabels, groupLabels } = readPromql(expr);
      expect(series.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of series) expect(exported.has(name), `${where}: ${name}`).toBe(true);
      for (const [metric, label] of selectorLabels)
        expect(exported.get(metric)?.has(label), `${where}: ${metric}{${label}}`).toBe(true);
      // A by() label must be on every series the expression reads, or the result joins nothing.
      for (const label of groupLabels) {
        for (const name of series)
          expect(exported.get(name)?.has(label), `${where}: by ${label} on ${name}`).toBe(true);
      }
    }
  });

  it('shows every series the worker exports', () => {
    const read = new Set(expressions.flatMap(({ expr }) => readPromql(expr).series));
    for (const name of Object.values(ModelMetric)) {
      expect(
        [...read].some((s) => s === name || s.startsWith(`${name}_`)),
        name,
      ).toBe(true);
    }
  });

  it('the check refuses a metric or a label the worker does not export (it can fail)', () => {
    const exported = exportedSeries();
    expect(readPromql('sum by (flow) (rate(agent_flows_model_calls_total[5m]))').series).toEqual([
      'agent_flows_model_calls_total',
    ]);
    expect(exported.has('agent_flows_model_calls_total')).toBe(false);
    expect(exported.has(ModelMetric.latency)).toBe(false); // a histogram is read as _bucket, _sum, _count
    const { selectorLabels } = readPromql('rate(agent_flows_model_input_tokens{outcome="ok"}[5m])');
    expect(exported.get(selectorLabels[0]![0])?.has(selectorLabels[0]![1])).toBe(false);
    expect(() => readPromql('sumx(rate(agent_flows_model_calls[5m]))')).toThrow(/unknown function/);
  });
});
