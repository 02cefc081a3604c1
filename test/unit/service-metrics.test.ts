import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createServiceMetrics } from '../../src/http/metrics/service-metrics.js';

// The first scrape of a fresh server: every known label value is there at 0 (rate() sees the first increment), and
// each HELP line names the label values its series take.

const firstScrape = () => createServiceMetrics({ poolStats: () => ({ total: 0, idle: 0, waiting: 0 }) }).registry.render();

/** The label values a counter's series have in the scrape, in order. */
const labelValues = (scrape: string, metric: string, label: string) =>
  [...scrape.matchAll(new RegExp(`^${metric}\\{${label}="([^"]+)"\\} 0$`, 'gm'))].map((match) => match[1]!);

describe('service metrics, first scrape', () => {
  it('oauth_tokens_issued_total starts every grant the product supports (config grantFlows) at 0', () => {
    const grants = configSchema.properties.grantFlows.items.enum;
    expect(labelValues(firstScrape(), 'oauth_tokens_issued_total', 'grant_type').sort()).toEqual([...grants].sort());
  });

  it('the HELP line of oauth_lockouts_total names every kind whose series starts at 0, user_codes (RFC 8628) included', () => {
    const scrape = firstScrape();
    const kinds = labelValues(scrape, 'oauth_lockouts_total', 'kind');
    expect(kinds).toContain('user_codes');
    const help = /^# HELP oauth_lockouts_total (.*)$/m.exec(scrape)![1]!;
    expect(help).toMatch(/\(([a-z_]+, )+[a-z_]+\)\.$/);
    expect(help.slice(help.lastIndexOf('(') + 1, -2).split(', ')).toEqual(kinds);
  });
});
