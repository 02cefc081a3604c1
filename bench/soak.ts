import { combine, runLoad, type LoadSettings, type Measurement } from './load.js';
import type { ServerProcess } from './processes.js';
import { markdownTable, ms, rate } from './report.js';
import type { Scenario } from './scenarios.js';

export interface SoakResult {
  seconds: number;
  beforeRss: number;
  /** VmRSS sampled every few seconds under load. */
  samples: Array<{ second: number; rss: number }>;
  afterRss: number;
  measurement: Measurement;
}

const SAMPLE_EVERY_SECONDS = 5;
const SETTLE_MS = 5_000;

/** A long run against the service alone, watching its resident memory before, during and after. */
export async function soak(service: ServerProcess, scenario: Scenario, settings: LoadSettings): Promise<SoakResult> {
  const beforeRss = service.rss();
  const samples: SoakResult['samples'] = [];
  let second = 0;
  const run = await runLoad(service.baseUrl, scenario, settings, {
    onTick: () => {
      second += 1;
      if (second % SAMPLE_EVERY_SECONDS === 0) samples.push({ second, rss: service.rss() });
    },
  });
  const measurement = combine([run]);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return { seconds: settings.seconds, beforeRss, samples, afterRss: service.rss(), measurement };
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/** Growth from the first fifth of the samples to the last fifth (the first samples include warm-up growth). */
export function rssGrowth(samples: SoakResult['samples']): { first: number; last: number; percent: number } {
  const fifth = Math.max(1, Math.floor(samples.length / 5));
  const first = mean(samples.slice(0, fifth).map((s) => s.rss));
  const last = mean(samples.slice(-fifth).map((s) => s.rss));
  return { first, last, percent: ((last - first) / first) * 100 };
}

export function soakTable(result: SoakResult, bootRss: number): string {
  const rss = result.samples.map((s) => s.rss);
  const sorted = [...rss].sort((a, b) => a - b);
  const growth = rssGrowth(result.samples);
  const m = result.measurement;
  const every = Math.max(1, Math.round(result.samples.length / 10));
  const series = result.samples.filter((_, i) => i % every === every - 1 || i === result.samples.length - 1);
  return markdownTable(
    ['service RSS', 'MB'],
    [
      ['after boot, idle', mb(bootRss)],
      ['before the soak, idle (after all endpoint runs)', mb(result.beforeRss)],
      [
        `during (${rss.length} samples): min / median / max`,
        `${mb(sorted[0] ?? NaN)} / ${mb(sorted[Math.floor(sorted.length / 2)] ?? NaN)} / ${mb(sorted.at(-1) ?? NaN)}`,
      ],
      [
        'during: mean of first fifth → last fifth of samples',
        `${mb(growth.first)} → ${mb(growth.last)} (${growth.percent >= 0 ? '+' : ''}${growth.percent.toFixed(1)} %)`,
      ],
      ['during: samples (second: MB)', series.map((s) => `${s.second}s: ${mb(s.rss)}`).join(', ')],
      [`after, ${SETTLE_MS / 1000} s idle`, mb(result.afterRss)],
      ['load: req/s, p50 / p99 ms', `${rate(m.requestsPerSecond)}, ${ms(m.p50)} / ${ms(m.p99)}`],
    ],
  );
}
