import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/address-key.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';

describe('addressKey', () => {
  it('keeps an IPv4 address whole, and keys an IPv6 address on its /64', () => {
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:fffe')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('treats an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::FFFF:c000:0201')).toBe('192.0.2.1');
    expect(addressKey('0:0:0:0:0:ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('returns what is no address as it is', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('unix:/tmp/socket')).toBe('unix:/tmp/socket');
  });
});

/** The sign-in limit per address, through HTTP, from addresses of one network and of others. */
describe('per-address limits key on the network', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('nets', { rate_limit_sign_in: 2, rate_limit_device_page: 2 });
  });
  afterAll(() => t.close());

  async function postSignIn(remoteAddress: string): Promise<LightMyRequestResponse> {
    const browser = new TestBrowser(t.app, t.baseUrl);
    browser.remoteAddress = remoteAddress;
    const page = await browser.get(`${realmPath('nets')}/account`);
    const url = page.headers.location as string;
    return browser.submit(url, await browser.get(url), { username: 'nobody', password: 'wrong password' });
  }

  it('counts every address of one IPv6 /64 against one budget; another /64 has its own', async () => {
    expect((await postSignIn('2001:db8:aa:1::1')).statusCode).not.toBe(429);
    expect((await postSignIn('2001:db8:aa:1::2')).statusCode).not.toBe(429);
    expect((await postSignIn('2001:db8:aa:1:ffff:1234:5678:9abc')).statusCode).toBe(429);
    expect((await postSignIn('2001:db8:aa:2::1')).statusCode).not.toBe(429);
  });

  it('counts IPv4 addresses one by one, and an IPv4-mapped address as its IPv4 address', async () => {
    expect((await postSignIn('192.0.2.50')).statusCode).not.toBe(429);
    expect((await postSignIn('::ffff:192.0.2.50')).statusCode).not.toBe(429);
    expect((await postSignIn('192.0.2.50')).statusCode).toBe(429);
    expect((await postSignIn('192.0.2.51')).statusCode).not.toBe(429);
  });

  it('counts failed sign-ins per network for the brute-force lock of an address', async () => {
    await t.admin.createRealm('failures-nets', { rate_limit_sign_in: null });
    const fail = async (remoteAddress: string) => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      browser.remoteAddress = remoteAddress;
      const url = (await browser.get(`${realmPath('failures-nets')}/account`)).headers.location as string;
      expect((await browser.submit(url, await browser.get(url), { username: 'nobody', password: 'wrong password' })).statusCode).toBe(200);
    };
    await fail('2001:db8:ee:1::1');
    await fail('2001:db8:ee:1::2');
    await fail('192.0.2.80');
    // The lock per address needs 50 failures, each answered later than the one before: the counts show the keys.
    const counts = await t.store.db.query<{ key: string; failures: number }>(
      "SELECT key, failures FROM attempt_counters WHERE key LIKE 'sign-in:failures-nets:address:%' ORDER BY key",
    );
    expect(counts.rows).toEqual([
      { key: 'sign-in:failures-nets:address:192.0.2.80', failures: 1 },
      { key: 'sign-in:failures-nets:address:2001:db8:ee:1::/64', failures: 2 },
    ]);
  });

  it('keys the device page the same way', async () => {
    const post = async (remoteAddress: string) => {
      const browser = new TestBrowser(t.app, t.baseUrl);
      browser.remoteAddress = remoteAddress;
      const url = `${realmPath('nets')}/device/user`;
      return (await browser.submit(url, await browser.get(url), { user_code: 'BCDF-GHJK' })).statusCode;
    };
    expect(await post('2001:db8:bb:1::a')).not.toBe(429);
    expect(await post('2001:db8:bb:1::b')).not.toBe(429);
    expect(await post('2001:db8:bb:1::c')).toBe(429);
  });

  it('keys the device page’s wrong user codes per network', async () => {
    await t.admin.createRealm('codes-nets', { rate_limit_device_page: null });
    const wrongCode = async (remoteAddress: string) => {
      // A browser of its own each time: only the count per address can lock.
      const browser = new TestBrowser(t.app, t.baseUrl);
      browser.remoteAddress = remoteAddress;
      const url = `${realmPath('codes-nets')}/device/user`;
      return browser.submit(url, await browser.get(url), { user_code: 'BCDF-GHJK' });
    };
    // 20 wrong codes per address in 15 minutes (src/web/device-verification.ts).
    for (let i = 0; i < 20; i++) expect((await wrongCode(`2001:db8:dd:1::${i + 1}`)).statusCode).toBe(200);
    const locked = await wrongCode('2001:db8:dd:1::abcd');
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toContain('Too many wrong codes');
    expect((await wrongCode('2001:db8:dd:2::1')).statusCode).toBe(200);
  });

  it('keys open registrations per network', async () => {
    await t.admin.createRealm('open-nets', { open_registration: true, rate_limit_registration: 2 });
    const register = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: `${realmPath('open-nets')}/connect/register`,
        remoteAddress,
        payload: { redirect_uris: ['https://app.example/callback'], token_endpoint_auth_method: 'none' },
      });
    expect((await register('2001:db8:cc:1::1')).statusCode).toBe(201);
    expect((await register('2001:db8:cc:1::2')).statusCode).toBe(201);
    expect((await register('2001:db8:cc:1::3')).statusCode).toBe(429);
    expect((await register('192.0.2.60')).statusCode).toBe(201);
  });
});
