import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('applies the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 9000, host: '127.0.0.1', baseUrl: 'http://localhost:9000', dataDir: './data', trustProxy: false, logLevel: 'info' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.adminToken).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', BASE_URL: '', ADMIN_TOKEN: '' })).toMatchObject({ port: 9000, baseUrl: 'http://localhost:9000', adminToken: undefined });
  });

  it('reads ADMIN_PORT, unset by default, and refuses it equal to PORT', () => {
    expect(loadConfig({}).adminPort).toBeUndefined();
    expect(loadConfig({ ADMIN_PORT: '' }).adminPort).toBeUndefined();
    expect(loadConfig({ PORT: '8080', ADMIN_PORT: '9001' })).toMatchObject({ port: 8080, adminPort: 9001 });
    expect(() => loadConfig({ ADMIN_PORT: '9000' })).toThrow(/ADMIN_PORT: must differ from PORT/);
    expect(() => loadConfig({ ADMIN_PORT: '0' })).toThrow(/ADMIN_PORT/);
    expect(() => loadConfig({ ADMIN_PORT: 'admin' })).toThrow(/ADMIN_PORT/);
  });

  it('derives the default BASE_URL from PORT, and keeps BASE_URL to its origin', () => {
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ BASE_URL: 'https://auth.example.com/' }).baseUrl).toBe('https://auth.example.com');
  });

  it('reads address lists, keys and header names', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1', CLIENT_CERT_HEADER: 'X-SSL-Client-Cert', MASTER_KEY: key.toString('base64url') });
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(config.clientCertHeader).toBe('x-ssl-client-cert');
    expect(config.masterKey?.equals(key)).toBe(true);
  });

  it('reads TRUST_PROXY as the load balancers\' addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , 127.0.0.1,::1, fd00:1::/32,::ffff:192.0.2.1,' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00:1::/32',
      '::ffff:192.0.2.1',
    ]);
    for (const off of ['', 'false', '0']) expect(loadConfig({ TRUST_PROXY: off }).trustProxy, off).toBe(false);
  });

  it('refuses TRUST_PROXY=true (trust every peer) and anything that is not an address or a range', () => {
    for (const everyone of ['true', '1', '10.0.0.1,true']) {
      expect(() => loadConfig({ TRUST_PROXY: everyone }), everyone).toThrow(/^invalid configuration: TRUST_PROXY: .*trust every peer/);
    }
    // /0 trusts every peer too.
    for (const everyone of ['0.0.0.0/0', '::/0']) expect(() => loadConfig({ TRUST_PROXY: everyone }), everyone).toThrow(/TRUST_PROXY: .*trusts every peer/);
    // Ranges no load balancer has: together, two halves trust every peer.
    for (const wide of ['0.0.0.0/1,128.0.0.0/1', '10.0.0.0/7', '::/1,8000::/1', 'fd00::/31', '::ffff:0.0.0.0/97']) {
      expect(() => loadConfig({ TRUST_PROXY: wide }), wide).toThrow(/^invalid configuration: TRUST_PROXY: .*is refused: a range wider than \/(8|32|104) would trust peers that are no load balancer/);
    }
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,fd00:1::/32,::ffff:10.0.0.0/104' }).trustProxy).toEqual(['10.0.0.0/8', 'fd00:1::/32', '::ffff:10.0.0.0/104']);
    for (const bad of ['maybe', 'TRUE', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/-1', '300.1.2.3', 'fe80::1%eth0', 'proxy.example', ',', ' , ']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/^invalid configuration: TRUST_PROXY: /);
    }
  });

  it('names the variable of every bad value in one message', () => {
    expect(() => loadConfig({ PORT: '1e3', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '1e3', LOG_LEVEL: 'loud' })).toThrow(/PORT: .*; LOG_LEVEL: /);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
    expect(() => loadConfig({ CLIENT_CERT_HEADER: 'bad header' })).toThrow(/CLIENT_CERT_HEADER/);
  });
});
