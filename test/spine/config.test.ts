import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';

describe('server/config.ts', () => {
  it('starts on safe development defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      USSD_SESSION_TTL_SECONDS: 180,
      USSD_RATE_LIMIT_PER_MINUTE: 100,
      TRUST_PROXY_ENABLED: false,
      CHAIN_ROUTE_PREFIX: 'ixo',
      ENABLED_PARTS: ['ussd', 'chain', 'oracle'],
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('refuses to start in production without PIN_ENCRYPTION_KEY and DATABASE_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PIN_ENCRYPTION_KEY[\s\S]*DATABASE_URL/);
  });

  it('starts in production when the unsafe defaults are replaced', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      PIN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ORACLE_SIGNING_KEY:
        'MgCY1B4pkDdXa5CG0C+oTn3SNCUmPOy8zMyQZiSbTzeJ7VO0BXR1c5kvNVFMBTuKvGfYuJbqFZ9Ut7lqDHITs5qKzoY8=',
    });
    expect(config.NODE_ENV).toBe('production');
  });

  it('refuses to start the oracle in production without its signing key', () => {
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      PIN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    expect(() => loadConfig(env)).toThrow(/ORACLE_SIGNING_KEY/);
    expect(loadConfig({ ...env, ENABLED_PARTS: 'ussd,chain' }).ENABLED_PARTS).toEqual(['ussd', 'chain']);
  });

  it('lets tests lower the PIN-hash cost, and refuses a low cost in production', () => {
    expect(loadConfig({}).PIN_SCRYPT_LOG2N).toBe(14);
    expect(loadConfig({ NODE_ENV: 'test', PIN_SCRYPT_LOG2N: '4' }).PIN_SCRYPT_LOG2N).toBe(4);
    const production = {
      NODE_ENV: 'production',
      ENABLED_PARTS: 'ussd,chain',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      PIN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    expect(() => loadConfig({ ...production, PIN_SCRYPT_LOG2N: '13' })).toThrow(
      /PIN_SCRYPT_LOG2N of at least 14/,
    );
    expect(loadConfig({ ...production, PIN_SCRYPT_LOG2N: '15' }).PIN_SCRYPT_LOG2N).toBe(15);
  });

  it('names every invalid variable', () => {
    const run = () => loadConfig({ PORT: 'eighty', TRUST_PROXY_ENABLED: 'yes', REDIS_URL: 'not a url' });
    expect(run).toThrow(/PORT/);
    expect(run).toThrow(/TRUST_PROXY_ENABLED/);
    expect(run).toThrow(/REDIS_URL/);
  });

  it('parses lists and booleans', () => {
    const config = loadConfig({
      TRUST_PROXY_ENABLED: 'true',
      CHAIN_LEGACY_PREFIXES: ' ixo-legacy, old ,',
      ENABLED_PARTS: 'ussd',
    });
    expect(config.TRUST_PROXY_ENABLED).toBe(true);
    expect(config.CHAIN_LEGACY_PREFIXES).toEqual(['ixo-legacy', 'old']);
    expect(config.ENABLED_PARTS).toEqual(['ussd']);
  });
});

describe('chain prefixes', () => {
  it('refuses a legacy prefix that is not one path segment', () => {
    expect(() => loadConfig({ CHAIN_LEGACY_PREFIXES: 'ixo,bad/prefix' })).toThrow(/CHAIN_LEGACY_PREFIXES/);
  });
});
