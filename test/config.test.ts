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

  it('derives the default BASE_URL from PORT, and keeps BASE_URL to its origin', () => {
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ BASE_URL: 'https://auth.example.com/' }).baseUrl).toBe('https://auth.example.com');
  });

  it('reads flags, keys and header names', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({ TRUST_PROXY: '1', CLIENT_CERT_HEADER: 'X-SSL-Client-Cert', MASTER_KEY: key.toString('base64url') });
    expect(config.trustProxy).toBe(true);
    expect(config.clientCertHeader).toBe('x-ssl-client-cert');
    expect(config.masterKey?.equals(key)).toBe(true);
  });

  it('names the variable of every bad value in one message', () => {
    expect(() => loadConfig({ PORT: '1e3', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '1e3', LOG_LEVEL: 'loud' })).toThrow(/PORT: .*; LOG_LEVEL: /);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
    expect(() => loadConfig({ CLIENT_CERT_HEADER: 'bad header' })).toThrow(/CLIENT_CERT_HEADER/);
  });
});
