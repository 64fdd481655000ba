import { afterEach, describe, expect, it } from 'vitest';
import { errorText, waitWords } from '../../web/src/api';
import { setLanguage } from '../../web/src/i18n/i18n';

const bad = (validation: { path: string; message: string }[], message = 'body.x: raw') => ({
  statusCode: 400,
  message,
  data: { validation },
});

describe('errorText: the hub’s error body in words for every form', () => {
  afterEach(() => setLanguage('en'));

  it('names each field in words, never the validator’s path', () => {
    expect(
      errorText(
        400,
        bad([{ path: 'firstName', message: 'Too big: expected string to have <=100 characters' }]),
        null,
      ),
    ).toBe('First name: at most 100 characters.');
    expect(
      errorText(
        400,
        bad([
          { path: 'emailAddress', message: 'Invalid email address' },
          { path: 'pulseSeconds', message: 'Too small: expected number to be >=1' },
          { path: 'name', message: 'Invalid input: expected string, received undefined' },
        ]),
        null,
      ),
    ).toBe('E-mail address: not a valid e-mail address. Pulse seconds: at least 1. Name: required.');
    expect(errorText(400, bad([{ path: 'until', message: 'must not lie before query.from' }]), null)).toBe(
      'Until: must not lie before from.',
    );
    expect(errorText(400, bad([{ path: 'lines.0.amount', message: 'expected a decimal' }]), null)).toBe(
      'Amount: expected a decimal.',
    );
  });

  it('keeps the hub’s own words when there is no field, and its status when there is no body', () => {
    expect(errorText(409, { message: 'The record was changed by someone else' }, null)).toBe(
      'The record was changed by someone else',
    );
    expect(errorText(500, null, null)).toBe('The hub answered 500');
  });

  it('says it in the member’s language: the field and the problem in German', () => {
    setLanguage('de');
    expect(
      errorText(
        400,
        bad([
          { path: 'firstName', message: 'Too big: expected string to have <=100 characters' },
          { path: 'emailAddress', message: 'Invalid email address' },
          { path: 'password', message: 'Too small: expected string to have >=12 characters' },
          { path: 'lastName', message: 'Invalid input: expected string, received undefined' },
        ]),
        null,
      ),
    ).toBe(
      'Vorname: höchstens 100 Zeichen. E-Mail-Adresse: keine gültige E-Mail-Adresse. Passwort: mindestens 12 Zeichen. Nachname: fehlt.',
    );
    expect(errorText(500, null, null)).toBe('Der Hub antwortete 500');
  });

  it('says once, in minutes, when a throttled call may be tried again', () => {
    const text = errorText(429, { message: 'Too many attempts; try again in 900 seconds' }, 900);
    expect(text).toBe('Too many attempts. Try again in 15 minutes.');
    expect(text.match(/try again/gi)).toHaveLength(1);
    expect(
      errorText(429, { message: 'Too many failed authentications from this address; try again in 40 s' }, 40),
    ).toBe('Too many failed authentications from this address. Try again in 40 seconds.');
    expect([waitWords(1), waitWords(60), waitWords(899), waitWords(7200)]).toEqual([
      '1 second',
      '60 seconds',
      '15 minutes',
      '2 hours',
    ]);
  });
});
