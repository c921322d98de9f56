import { describe, expect, it } from 'vitest';
import { withSharedValues } from '../../src/store/shared-values.js';

const parse = (record: object) => withSharedValues(JSON.parse(JSON.stringify(record)) as Record<string, unknown>);

describe('values shared between cached rows', () => {
  it('holds equal short strings and string lists once, across records parsed apart', () => {
    const record = { grant_types: ['client_credentials'], redirect_uris: [], method: 'client_secret_basic', count: 3, on: true };
    const [a, b] = [parse(record), parse(record)];
    expect(a).toEqual(record);
    expect(b.grant_types).toBe(a.grant_types);
    expect(b.redirect_uris).toBe(a.redirect_uris);
    // Strings compare by value in JavaScript; held alike, they are the same list entry too.
    expect(Object.is(b.method, a.method)).toBe(true);
  });

  it('freezes the lists it shares, so that no record can change another', () => {
    const a = parse({ grant_types: ['authorization_code', 'refresh_token'] });
    expect(Object.isFrozen(a.grant_types)).toBe(true);
    expect(() => (a.grant_types as string[]).push('password')).toThrow(TypeError);
    expect(parse({ grant_types: ['authorization_code', 'refresh_token'] }).grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('tells a list from a string of the same text, and leaves other values as they are', () => {
    const a = parse({ list: ['x'], text: '["x"]', nested: { inner: ['x'] }, numbers: [1, 2] });
    expect(a.list).toEqual(['x']);
    expect(a.text).toBe('["x"]');
    expect(Object.isFrozen(a.nested)).toBe(false);
    expect(Object.isFrozen(a.numbers)).toBe(false);
  });

  it('keeps long strings as they come, and past its bound lets go of the values met least recently', () => {
    const long = 'u'.repeat(65);
    expect(parse({ uri: long }).uri).toBe(long);
    const uris = (i: number) => [`https://app-${i}.example/cb`];
    const first = parse({ uris: uris(0) }).uris;
    const recurring = parse({ grant_types: ['urn:example:recurring'] }).grant_types;
    // Far more distinct lists than the bound, as the redirect URIs of 12,000 clients would be;
    // each comes back equal, and a list met every thousand rows stays shared.
    for (let i = 1; i <= 12_000; i++) {
      expect(parse({ uris: uris(i) }).uris).toEqual(uris(i));
      if (i % 1_000 === 0) expect(parse({ grant_types: ['urn:example:recurring'] }).grant_types).toBe(recurring);
    }
    // The first list, not met since, is no longer held; a value first met now is.
    expect(parse({ uris: uris(0) }).uris).not.toBe(first);
    const late = parse({ grant_types: ['urn:example:late'] }).grant_types;
    expect(parse({ grant_types: ['urn:example:late'] }).grant_types).toBe(late);
  });
});
