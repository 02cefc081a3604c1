import { describe, expect, it } from 'vitest';
import { escapeHelp, escapeLabelValue, formatValue } from '../../src/http/metrics/prometheus-text.js';
import { MetricsRegistry } from '../../src/http/metrics/registry.js';

describe('Prometheus text exposition (format 0.0.4)', () => {
  it('a counter renders its HELP and TYPE lines, then one sample per label set in first-use order', () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('jobs_total', 'Jobs done.', ['queue']);
    counter.labels('b').inc();
    counter.labels('a').inc(2);
    counter.labels('b').inc();
    expect(registry.render()).toBe(
      ['# HELP jobs_total Jobs done.', '# TYPE jobs_total counter', 'jobs_total{queue="b"} 2', 'jobs_total{queue="a"} 2', ''].join('\n'),
    );
  });

  it('a counter without labels renders a bare sample', () => {
    const registry = new MetricsRegistry();
    registry.counter('ticks_total', 'Ticks.').labels().inc(3);
    expect(registry.render()).toContain('\nticks_total 3\n');
  });

  it('the same label values give the same series object (callers keep it on hot paths)', () => {
    const counter = new MetricsRegistry().counter('x_total', 'X.', ['a', 'b']);
    expect(counter.labels('1', '2')).toBe(counter.labels('1', '2'));
    expect(counter.labels('1', '2')).not.toBe(counter.labels('12', ''));
  });

  it('label values escape backslash, double quote and line feed', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const registry = new MetricsRegistry();
    registry.counter('odd_total', 'Odd.', ['path']).labels('C:\\"x"\n').inc();
    expect(registry.render()).toContain('odd_total{path="C:\\\\\\"x\\"\\n"} 1\n');
  });

  it('HELP text escapes backslash and line feed but not double quotes', () => {
    expect(escapeHelp('say "hi"\\\nnow')).toBe('say "hi"\\\\\\nnow');
    const registry = new MetricsRegistry();
    registry.counter('h_total', 'Two\nlines', []);
    expect(registry.render()).toContain('# HELP h_total Two\\nlines\n');
  });

  it('special values render as +Inf, -Inf and NaN', () => {
    expect([formatValue(Infinity), formatValue(-Infinity), formatValue(NaN), formatValue(0.25)]).toEqual(['+Inf', '-Inf', 'NaN', '0.25']);
  });

  it('a histogram renders cumulative buckets, a +Inf bucket equal to the count, then _sum and _count', () => {
    const registry = new MetricsRegistry();
    const histogram = registry.histogram('latency_seconds', 'Latency.', ['route'], [0.1, 0.5, 1]);
    const series = histogram.labels('/a');
    for (const value of [0.05, 0.1, 0.3, 0.7, 2, 3]) series.observe(value);
    expect(registry.render()).toBe(
      [
        '# HELP latency_seconds Latency.',
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{route="/a",le="0.1"} 2',
        'latency_seconds_bucket{route="/a",le="0.5"} 3',
        'latency_seconds_bucket{route="/a",le="1"} 4',
        'latency_seconds_bucket{route="/a",le="+Inf"} 6',
        'latency_seconds_sum{route="/a"} 6.15',
        'latency_seconds_count{route="/a"} 6',
        '',
      ].join('\n'),
    );
  });

  it('a histogram without labels puts le alone in the braces', () => {
    const registry = new MetricsRegistry();
    registry.histogram('h_seconds', 'H.', [], [1]).labels().observe(0.5);
    const text = registry.render();
    expect(text).toContain('h_seconds_bucket{le="1"} 1\n');
    expect(text).toContain('h_seconds_sum 0.5\n');
  });

  it('a labelled gauge renders the value last set on each series, and nothing before a first value', () => {
    const registry = new MetricsRegistry();
    const gauge = registry.labelledGauge('fill_ratio', 'Fill.', ['kind']);
    expect(registry.render()).toBe('# HELP fill_ratio Fill.\n# TYPE fill_ratio gauge\n');
    gauge.labels('a').set(0.5);
    gauge.labels('a').set(0.25);
    gauge.labels('b').set(1);
    expect(registry.render()).toContain('fill_ratio{kind="a"} 0.25\nfill_ratio{kind="b"} 1\n');
  });

  it('sampled gauges and counters are read at render time', () => {
    const registry = new MetricsRegistry();
    let value = 1;
    registry.gauge('level', 'Level.', () => value);
    registry.sampledCounter('work_seconds_total', 'Work.', () => 2.5);
    value = 7;
    const text = registry.render();
    expect(text).toContain('# TYPE level gauge\nlevel 7\n');
    expect(text).toContain('# TYPE work_seconds_total counter\nwork_seconds_total 2.5\n');
  });

  it('refuses invalid or duplicate names, reserved labels and unordered buckets', () => {
    const registry = new MetricsRegistry();
    registry.counter('ok_total', 'Ok.');
    expect(() => registry.counter('ok_total', 'Again.')).toThrow(/already registered/);
    expect(() => registry.counter('bad-name', 'Bad.')).toThrow(/metric name/);
    expect(() => registry.counter('c_total', 'C.', ['__reserved'])).toThrow(/label name/);
    expect(() => registry.counter('d_total', 'D.', ['a', 'a'])).toThrow(/duplicate/);
    expect(() => registry.histogram('h', 'H.', ['le'], [1])).toThrow(/label name/);
    expect(() => registry.histogram('h2', 'H.', [], [1, 1])).toThrow(/increasing/);
    expect(() => registry.counter('e_total', 'E.', ['a']).labels('1', '2')).toThrow(/label values/);
  });
});
