// The Prometheus text exposition format, version 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function assertMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name: ${name}`);
}

/** Label names starting with `__` are reserved for Prometheus itself; `le` for histogram buckets. */
export function assertLabelNames(names: readonly string[], reserved: readonly string[] = []): void {
  for (const name of names) {
    if (!LABEL_NAME.test(name) || name.startsWith('__') || reserved.includes(name)) throw new Error(`invalid label name: ${name}`);
  }
  if (new Set(names).size !== names.length) throw new Error(`duplicate label name in ${names.join(', ')}`);
}

/** In label values, backslash, double quote and line feed are escaped as \\, \" and \n. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (char) => (char === '\n' ? '\\n' : `\\${char}`));
}

/** In HELP lines, only backslash and line feed are escaped. */
export function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (char) => (char === '\n' ? '\\n' : '\\\\'));
}

/** `a="x",b="y"` (no braces), built once per series so that rendering and hot paths never rebuild it. */
export function labelPairs(names: readonly string[], values: readonly string[]): string {
  if (names.length !== values.length) throw new Error(`expected ${names.length} label values, got ${values.length}`);
  return names.map((name, i) => `${name}="${escapeLabelValue(values[i]!)}"`).join(',');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export function sampleLine(name: string, pairs: string, value: number): string {
  return pairs === '' ? `${name} ${formatValue(value)}` : `${name}{${pairs}} ${formatValue(value)}`;
}

export function headerLines(name: string, help: string, type: MetricType): string[] {
  return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
}
