import { describe, expect, it } from 'vitest';
import { detailLines, filledIn } from '../../src/http/routes/authorize/authorization-details-lines.js';
import { narrowedDetails, parseAuthorizationDetails } from '../../src/oauth/resources/authorization-details.js';
import { InvalidAuthorizationDetails } from '../../src/oauth/errors.js';

// RFC 9396 section 4 on the consent page: a type's text with its {{path}} placeholders looked up (never evaluated),
// else the object's fields; and section 6.2's narrowing by deep equality.

const PAYMENT = { type: 'payment_initiation', instructedAmount: { currency: 'EUR', amount: '1.00' }, creditorName: 'A', tags: ['x', 'y'] };

describe('authorization_details in words', () => {
  it('fills dotted paths, joins arrays, leaves a missing field empty, and runs nothing', () => {
    expect(filledIn('Pay {{instructedAmount.amount}} {{ instructedAmount.currency }} to {{creditorName}}', PAYMENT)).toBe(
      'Pay 1.00 EUR to A',
    );
    expect(filledIn('{{tags}} / {{missing.path}} / {{type}}', PAYMENT)).toBe('x, y /  / payment_initiation');
    // Inherited properties are no fields: Object's constructor is never reached, nor is any expression evaluated.
    expect(filledIn('{{constructor.name}}{{toString}}{{1+1}}{{creditorName.length}}', PAYMENT)).toBe('{{1+1}}');
  });

  it('bounds a long value, and picks the page language’s text, else the default language’s', () => {
    expect(filledIn('{{creditorName}}', { type: 't', creditorName: 'x'.repeat(500) })).toBe(`${'x'.repeat(200)}…`);
    const types = { payment_initiation: { schema: null, consent: { en: 'Pay {{creditorName}}', de: 'Zahle {{creditorName}}' } } };
    expect(detailLines([PAYMENT], types, 'de', 'en')[0]).toMatchObject({ text: 'Zahle A', lang: null });
    // The default language's text on a French page says it is English (the page gives it lang="en").
    expect(detailLines([PAYMENT], types, 'fr', 'en')[0]).toMatchObject({ text: 'Pay A', lang: 'en' });
  });

  it('without a text for its type, the object is listed by its fields (dotted paths), its type aside', () => {
    expect(detailLines([PAYMENT], {}, 'en', 'en')).toEqual([
      {
        type: 'payment_initiation',
        text: null,
        lang: null,
        fields: [
          ['instructedAmount.currency', 'EUR'],
          ['instructedAmount.amount', '1.00'],
          ['creditorName', 'A'],
          ['tags', 'x, y'],
        ],
      },
    ]);
  });
});

describe('narrowing authorization_details (section 6.2)', () => {
  it('keeps a deeply equal subset (key order aside), refuses anything else, and keeps all without the parameter', () => {
    const granted = parseAuthorizationDetails(JSON.stringify([PAYMENT, { type: 'account_information' }]));
    expect(narrowedDetails(undefined, granted)).toEqual(granted);
    const reordered = {
      creditorName: 'A',
      tags: ['x', 'y'],
      instructedAmount: { amount: '1.00', currency: 'EUR' },
      type: 'payment_initiation',
    };
    expect(narrowedDetails(JSON.stringify([reordered]), granted)).toEqual([reordered]);
    expect(() => narrowedDetails(JSON.stringify([{ ...PAYMENT, tags: ['x'] }]), granted)).toThrow(InvalidAuthorizationDetails);
    expect(() => narrowedDetails('[]', granted)).toThrow('authorization_details must name at least one object.');
  });
});
