import { describe, expect, it } from 'vitest';
import { MAX_ROW_CHARS, parseRows } from './rows.ts';

const buf = (s: string) => Buffer.from(s);

describe('parseRows: JSON arrays, element by element', () => {
  it('finds the elements whatever their strings hold', async () => {
    const rows = [{ a: '],[{' }, { b: 'say \\"hi\\"]' }, { c: ['x', { d: '}' }] }, 5, 'str', null];
    const r = await parseRows(buf(JSON.stringify(rows, null, 2)), 'application/json');
    expect(r.rows).toEqual(rows);
    expect(r.indexes).toEqual([0, 1, 2, 3, 4, 5]);
    expect(r.malformed).toEqual([]);
  });

  it('reads one row that is not an array, and an empty array', async () => {
    expect((await parseRows(buf('{"a":1}'), 'application/json')).rows).toEqual([{ a: 1 }]);
    expect((await parseRows(buf(' [ ] '), 'application/json')).rows).toEqual([]);
  });

  it('refuses a body that is not JSON, naming the problem', async () => {
    for (const [body, why] of [
      ['[{"a":1},]', /element 1/],
      ['[{"a":1}', /not closed/],
      ['[{"a":"x]', /string is not closed/],
      ['[1] 2', /after the array/],
      ['[}', /unexpected "}"/],
      ['{"a":', /not valid JSON/],
    ] as const) {
      await expect(parseRows(buf(body), 'application/json'), body).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(why) });
    }
  });

  it('rejects a row longer than the limit without parsing it, and keeps the others', async () => {
    const long = JSON.stringify({ x: 'y'.repeat(MAX_ROW_CHARS) });
    const r = await parseRows(buf(`[{"a":1},${long},{"b":2}]`), 'application/json');
    expect(r.rows).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.indexes).toEqual([0, 2]);
    expect(r.malformed).toEqual([{ index: 1, path: '', message: expect.stringMatching(/longer than/) }]);
  });
});

describe('parseRows: NDJSON', () => {
  it('keeps each line, skips blank ones, numbers the rest, reads CRLF and a byte-order mark', async () => {
    const r = await parseRows(buf('\ufeff{"a":1}\r\n\r\n  \nnot json\n{"b":2}'), 'application/x-ndjson');
    expect(r.rows).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(r.indexes).toEqual([0, 2]);
    expect(r.malformed).toEqual([{ index: 1, path: '', message: expect.stringMatching(/malformed JSON/) }]);
  });

  it('parses a million lines in slices, with every row accounted for', async () => {
    const r = await parseRows(buf('1\n'.repeat(1_000_000)), 'application/x-ndjson');
    expect(r.rows.length).toBe(1_000_000);
    expect(r.indexes[999_999]).toBe(999_999);
  });
});
