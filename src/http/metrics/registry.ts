import {
  assertLabelNames,
  assertMetricName,
  formatValue,
  headerLines,
  labelPairs,
  sampleLine,
  type MetricType,
} from './prometheus-text.js';

// A small in-process metrics registry written for the request hot path: a series is looked up once by its
// label values and then kept by the caller, so counting is one addition and never builds a label string.

interface Metric {
  readonly name: string;
  render(lines: string[]): void;
}

const SEPARATOR = '\u0000';

/** Series of one metric, created on first use and kept in insertion order (the order they render in). */
abstract class Labelled<S> implements Metric {
  private readonly series = new Map<string, S>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The series of these label values; keep it when it is used per request. */
  labels(...values: string[]): S {
    const key = values.join(SEPARATOR);
    let found = this.series.get(key);
    if (!found) {
      found = this.create(labelPairs(this.labelNames, values));
      this.series.set(key, found);
    }
    return found;
  }

  protected entries(): Iterable<S> {
    return this.series.values();
  }

  protected abstract create(pairs: string): S;
  abstract render(lines: string[]): void;
}

export class CounterSeries {
  value = 0;
  constructor(readonly pairs: string) {}

  inc(by = 1): void {
    this.value += by;
  }
}

/** Series that are one number each, one sample line per series: counters, and gauges their owner sets. */
abstract class SingleValued<S extends { readonly pairs: string; value: number }> extends Labelled<S> {
  protected abstract readonly type: Extract<MetricType, 'counter' | 'gauge'>;

  render(lines: string[]): void {
    lines.push(...headerLines(this.name, this.help, this.type));
    for (const series of this.entries()) lines.push(sampleLine(this.name, series.pairs, series.value));
  }
}

export class Counter extends SingleValued<CounterSeries> {
  protected readonly type = 'counter';

  protected create(pairs: string) {
    return new CounterSeries(pairs);
  }
}

export class HistogramSeries {
  /** Per-bucket counts, not cumulative (the last one counts values above every bound); summed at render. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly pairs: string,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class Histogram extends Labelled<HistogramSeries> {
  readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]) {
    super(name, help, labelNames);
    if (bounds.length === 0 || bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]!))) {
      throw new Error(`histogram ${name}: buckets must be finite and strictly increasing`);
    }
    this.bounds = [...bounds];
  }

  protected create(pairs: string) {
    return new HistogramSeries(pairs, this.bounds);
  }

  render(lines: string[]): void {
    lines.push(...headerLines(this.name, this.help, 'histogram'));
    const bucket = `${this.name}_bucket`;
    for (const series of this.entries()) {
      const prefix = series.pairs === '' ? '' : `${series.pairs},`;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        lines.push(sampleLine(bucket, `${prefix}le="${formatValue(bound)}"`, cumulative));
      });
      lines.push(sampleLine(bucket, `${prefix}le="+Inf"`, series.count));
      lines.push(sampleLine(`${this.name}_sum`, series.pairs, series.sum));
      lines.push(sampleLine(`${this.name}_count`, series.pairs, series.count));
    }
  }
}

export class GaugeSeries {
  value = 0;
  constructor(readonly pairs: string) {}

  set(value: number): void {
    this.value = value;
  }
}

/** A gauge its owner sets when the value changes (what a count in the database last said), by labels. */
export class Gauge extends SingleValued<GaugeSeries> {
  protected readonly type = 'gauge';

  protected create(pairs: string) {
    return new GaugeSeries(pairs);
  }
}

/** A value read when scraped (pool sizes, memory): nothing to update on the hot path. */
export class Sampled implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: Extract<MetricType, 'gauge' | 'counter'>,
    private readonly read: () => number,
  ) {}

  render(lines: string[]): void {
    lines.push(...headerLines(this.name, this.help, this.type), sampleLine(this.name, '', this.read()));
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    assertLabelNames(labelNames);
    return this.add(new Counter(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram {
    assertLabelNames(labelNames, ['le']);
    return this.add(new Histogram(name, help, labelNames, buckets));
  }

  gauge(name: string, help: string, read: () => number): Sampled {
    return this.add(new Sampled(name, help, 'gauge', read));
  }

  /** A gauge by labels, set by its owner (a series appears with its first value). */
  labelledGauge(name: string, help: string, labelNames: readonly string[]): Gauge {
    assertLabelNames(labelNames);
    return this.add(new Gauge(name, help, labelNames));
  }

  /** A counter kept elsewhere (process CPU time) and read at scrape time. */
  sampledCounter(name: string, help: string, read: () => number): Sampled {
    return this.add(new Sampled(name, help, 'counter', read));
  }

  /** Every metric in registration order, in the text format, ending with a line feed. */
  render(): string {
    const lines: string[] = [];
    for (const metric of this.metrics.values()) metric.render(lines);
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  }

  private add<M extends Metric>(metric: M): M {
    assertMetricName(metric.name);
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
}
