import { describe, expect, it } from 'vitest';
import { namesRealMoment } from '../../src/oauth/calendar-date.js';

describe('an ISO 8601 date or instant that names a real moment (a data lifecycle audit: 2027-02-30 was kept as 2 March)', () => {
  it.each(['2027-01-31T00:00:00Z', '2028-02-29', '2027-12-31T23:59:59.999+14:00', '2026-11-28T10:00', '2026-11-28T10:00:00-05:30'])(
    'takes %s',
    (text) => expect(namesRealMoment(text)).toBe(true),
  );

  it.each([
    '2027-02-30T00:00:00Z',
    '2027-02-29',
    '2027-04-31',
    '2027-13-01',
    '2027-00-10',
    '2027-01-00',
    '2027-01-31T24:30:00Z',
    '2027-01-31T10:60Z',
    '2027-01-31T10:00:60Z',
    '2027-01-31T10:00:00+24:00',
    'not a date',
  ])('refuses %s', (text) => expect(namesRealMoment(text)).toBe(false));
});
