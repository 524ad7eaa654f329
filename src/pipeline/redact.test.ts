import { describe, expect, it } from 'vitest';
import { luhnOk, redact } from './redact.ts';

/** [text, expected] pairs: every PII form we promise to catch. */
const HITS: [string, string][] = [
  // e-mail
  ['mail jane.doe@example.com now', 'mail [EMAIL] now'],
  ['<a.b+tag@mail.sub.example.co.uk>', '<[EMAIL]>'],
  ['Contact: J_O%E@EXAMPLE.ORG.', 'Contact: [EMAIL].'],
  // cards (Luhn-valid test numbers of each network)
  ['visa 4111 1111 1111 1111 ok', 'visa [CARD] ok'],
  ['visa 4111111111111111', 'visa [CARD]'],
  ['mc 5555-5555-5555-4444', 'mc [CARD]'],
  ['mc2 2223003122003222', 'mc2 [CARD]'],
  ['amex 3782 822463 10005', 'amex [CARD]'],
  ['discover 6011 1111 1111 1117.', 'discover [CARD].'],
  ['visa13 4222222222222', 'visa13 [CARD]'],
  ['card 4111 1111 1111 1111 12/25', 'card [CARD] 12/25'],
  ['ref 12 4111 1111 1111 1111 25', 'ref 12 [CARD] 25'],
  ['ref 12-35 4111 1111 1111 1111', 'ref 12-35 [CARD]'],
  ['card 4111 1111 1111 1111 12 25', 'card [CARD] 12 25'],
  ['two 4111111111111111 5555555555554444', 'two [CARD] [CARD]'],
  ['glued 4111111111111111abc', 'glued [CARD]abc'],
  // IPv4 / IPv6
  ['from 192.168.1.100 and 10.0.0.1.', 'from [IP] and [IP].'],
  ['ip=8.8.8.8,', 'ip=[IP],'],
  ['v6 2001:db8:85a3::8a2e:370:7334 here', 'v6 [IP] here'],
  ['full 2001:0db8:0000:0000:0000:ff00:0042:8329', 'full [IP]'],
  ['mapped ::ffff:192.0.2.128 x', 'mapped [IP] x'],
  ['link fe80::1ff:fe23:4567:890a%eth0', 'link [IP]%eth0'],
  // phones
  ['call +1 415 555 2671 today', 'call [PHONE] today'],
  ['+44 20 7946 0958', '[PHONE]'],
  ['tel:+49-30-1234567', 'tel:[PHONE]'],
  ['+33 1 23 45 67 89', '[PHONE]'],
  ['(415) 555-2671', '[PHONE]'],
  ['415-555-2671', '[PHONE]'],
  ['415.555.2671', '[PHONE]'],
  ['uk 020 7946 0958', 'uk [PHONE]'],
  ['fr 01 23 45 67 89', 'fr [PHONE]'],
  ['de 030 1234567', 'de [PHONE]'],
  ['mobile 07700 900123', 'mobile [PHONE]'],
  // Real-world formats that hand-written patterns missed (issue 12), found with libphonenumber.
  ['call 1-888-406-4246 for support', 'call [PHONE] for support'],
  ['TEL:0031-623-787-971', 'TEL:[PHONE]'],
  ['Phone: +1 (650) 253-0000', 'Phone: [PHONE]'],
  ['US: 1 (650) 253-0000 ext', 'US: [PHONE] ext'],
  ['London +44 (0)20 7031 3000', 'London [PHONE]'],
  ['from the US dial 011 44 20 7031 3000', 'from the US dial [PHONE]'],
  ['Berlin +49 (0)30 303986300', 'Berlin [PHONE]'],
  ['Bengaluru +91 80 6721 8000 or 080-6721-8000', 'Bengaluru [PHONE] or [PHONE]'],
  ['Tokyo +81 3-6384-9000', 'Tokyo [PHONE]'],
  ['Sydney +61 2 9374 4000', 'Sydney [PHONE]'],
  ['Paris 01 42 68 53 00', 'Paris [PHONE]'],
  ['freephone 0800 028 0000', 'freephone [PHONE]'],
];

/** Look-alikes that must stay as they are. */
const KEEP: string[] = [
  'version 1.2.3.4.5 released',
  'semver 10.4.2 and 2.0.0-rc.1',
  'date 2024-01-15 and 15.01.2024 and 01/02/2024 and 01.02.2024',
  'at 10:30:00 or 23:59:59.999',
  'ts 2026-11-30T10:00:00.123Z',
  'epoch ms 1733000000000 and 1733000000001234',
  'order 4111 1111 1111 1112 (not Luhn)',
  'mixed 4111-1111 1111-1111',
  'decimal 4111111111111111.25',
  'order number 1234567890123456',
  'invoice 20240115103000123',
  'short numbers 42, 12345, 555-1234',
  'mac 00:1A:2B:3C:4D:5E',
  'std::vector and Foo::bar and a::b',
  'sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'price 1,234.56 and 3.14159',
  'not an ip 256.1.1.1 or 1.2.3',
  'at sign alone @ and user@ and @host',
  'loopback ::1',
  'a+1 = 2 and 1+1000000000',
  'zeros 0000 0000 0000 0000',
  'token ids 101 2023 2003 1037 3231 102',
  'digits spelled out 1 2 3 4 5 6 7 8 9 0',
  'ISBN 978-3-16-148410-0',
  'pi 3.14159 and e 2.71828',
];

describe('redact', () => {
  it.each(HITS)('redacts %j', (text, expected) => {
    expect(redact(text).text).toBe(expected);
  });

  it.each(KEEP)('keeps the look-alike %j', (text) => {
    expect(redact(text).text).toBe(text);
  });

  it('counts what it replaced, by kind', () => {
    const r = redact('a@b.io, 4111 1111 1111 1111, 10.0.0.1, fe80::1:2, +1 415 555 2671, x@y.org');
    expect(r.text).toBe('[EMAIL], [CARD], [IP], [IP], [PHONE], [EMAIL]');
    expect(r.counts).toEqual({ email: 2, card: 1, ip: 2, phone: 1 });
  });

  it('recognises the national formats of the configured regions', () => {
    // A US national number is a phone number for the default regions (US, GB, FR, IN), not for
    // Japan alone; international forms are recognised whatever the regions.
    expect(redact('SF (415) 555-2671').text).toBe('SF [PHONE]');
    expect(redact('SF (415) 555-2671', { phoneRegions: ['JP'] }).text).toBe('SF (415) 555-2671');
    expect(redact('Tokyo 03-6384-9000', { phoneRegions: ['JP'] }).text).toBe('Tokyo [PHONE]');
    expect(redact('SF +1 415 555 2671', { phoneRegions: ['JP'] }).text).toBe('SF [PHONE]');
  });

  it('bounds the look-ups per text, redacting the rest of the candidates unchecked', () => {
    // 100 candidates that are not phone numbers: the first ones are looked up and kept, those
    // past the look-up budget are redacted without a look-up (a false hit costs less than a leak).
    const text = Array.from({ length: 100 }, (_, i) => `x ${1000 + i} ${2000 + i}`).join(' ');
    const out = redact(text).text;
    expect(out.startsWith('x 1000 2000 x 1001 2001')).toBe(true);
    expect(out.endsWith('x [PHONE]')).toBe(true);
  });

  it('Luhn: 79927398713 is valid, 79927398710 is not (the textbook example)', () => {
    expect(luhnOk('79927398713')).toBe(true);
    expect(luhnOk('79927398710')).toBe(false);
  });

  it('handles 64 KiB of adversarial text (a quadratic pattern would run past the test timeout)', () => {
    const cases: [string, string][] = [
      ['a'.repeat(65_000) + '@', 'a'.repeat(65_000) + '@'],
      ['1 '.repeat(32_000), '1 '.repeat(32_000)],
      ['1.'.repeat(32_000), '1.'.repeat(32_000)],
      ['a:'.repeat(32_000), 'a:'.repeat(32_000)],
      ['7'.repeat(65_000), '7'.repeat(65_000)],
      ['x '.repeat(30_000) + 'jane@example.com', 'x '.repeat(30_000) + '[EMAIL]'],
    ];
    for (const [text, expected] of cases) expect(redact(text).text).toBe(expected);
  });
});
