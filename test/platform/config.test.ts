import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, productionWarnings } from '../../server/config.js';

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

  it('refuses to start in production without DATABASE_URL and PIN_ENCRYPTION_KEY', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    // Platform first, then each part in spec order (the order of docs/configuration.md).
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL[\s\S]*PIN_ENCRYPTION_KEY/);
  });

  const productionEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
    PIN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    ORACLE_SIGNING_KEY:
      'MgCY1B4pkDdXa5CG0C+oTn3SNCUmPOy8zMyQZiSbTzeJ7VO0BXR1c5kvNVFMBTuKvGfYuJbqFZ9Ut7lqDHITs5qKzoY8=',
    CHAIN_GRPC_URL: 'ixo-node.internal:9090',
    ORACLE_CORS_ORIGINS: 'https://app.example.org',
    USSD_AGGREGATOR_AUTH: 'network',
  };

  it('starts in production when the unsafe defaults are replaced', () => {
    const config = loadConfig(productionEnv);
    expect(config.NODE_ENV).toBe('production');
  });

  it('refuses the fixture chain node in production unless CHAIN_GRPC_URL asks for it by name', () => {
    const { CHAIN_GRPC_URL: _, ...withoutChain } = productionEnv;
    expect(() => loadConfig(withoutChain)).toThrow(
      /CHAIN_GRPC_URL \(host:port of an IXO node's gRPC endpoint; `fixture` for the embedded fixture node/,
    );
    // Only the parts that talk to a chain need one.
    expect(loadConfig({ ...withoutChain, ENABLED_PARTS: 'ussd' }).ENABLED_PARTS).toEqual(['ussd']);
    // Asked for by name: the fixture node, in any environment (CHAIN_GRPC_URL then reads as unset).
    expect(loadConfig({ ...withoutChain, CHAIN_GRPC_URL: 'fixture' }).CHAIN_GRPC_URL).toBeUndefined();
    expect(loadConfig({ CHAIN_GRPC_URL: 'fixture' }).CHAIN_GRPC_URL).toBeUndefined();
    expect(loadConfig({ CHAIN_GRPC_URL: '10.0.0.5:9090' }).CHAIN_GRPC_URL).toBe('10.0.0.5:9090');
  });

  it('names what production runs that is fit for development only: the fixture node, the scripted model', () => {
    // Open CORS is refused in production (test/security/production-config.test.ts), no longer warned about.
    const withDefaults = loadConfig({ ...productionEnv, CHAIN_GRPC_URL: 'fixture' });
    expect(productionWarnings(withDefaults)).toEqual([
      'the fixture chain node serves fixture data as chain data (CHAIN_GRPC_URL=fixture)',
      'the scripted model answers every chat (set OPENAI_BASE_URL and OPENAI_MODEL)',
    ]);
    const replaced = loadConfig({
      ...productionEnv,
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'llama3',
      ORACLE_CORS_ORIGINS: 'https://app.example.org',
      TRUST_PROXY_ENABLED: '10.0.0.2',
    });
    expect(productionWarnings(replaced)).toEqual([]);
    // A hop count trusts whoever reaches the port.
    expect(productionWarnings({ ...replaced, TRUST_PROXY_ENABLED: 1 })).toEqual([
      "TRUST_PROXY_ENABLED trusts X-Forwarded-For from whoever reaches the port (1 hop): keep the instance port private or name the proxy's addresses",
    ]);
    // Development is not warned about its own defaults.
    expect(productionWarnings(loadConfig({}))).toEqual([]);
  });

  it('takes the listen address from HOST (default every IPv4 interface)', () => {
    expect(loadConfig({}).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '127.0.0.1' }).HOST).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '::' }).HOST).toBe('::');
    expect(() => loadConfig({ HOST: 'not a host' })).toThrow(/HOST/);
  });

  it("takes TRUST_PROXY_ENABLED as off, a number of hops, or the proxies' addresses", () => {
    const trust = (v: string) => loadConfig({ TRUST_PROXY_ENABLED: v }).TRUST_PROXY_ENABLED;
    expect(trust('')).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('true')).toBe(1);
    expect(trust('2')).toBe(2);
    expect(trust('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(trust(' 10.0.0.2, 192.168.0.0/16 ,::1,loopback')).toEqual([
      '10.0.0.2',
      '192.168.0.0/16',
      '::1',
      'loopback',
    ]);
    expect(() => trust('yes')).toThrow(/TRUST_PROXY_ENABLED: false, a number of proxy hops/);
    expect(() => trust('10.0.0.0/33')).toThrow(/not "10.0.0.0\/33"/);
    expect(() => trust('11')).toThrow(/TRUST_PROXY_ENABLED/);
  });

  it('migrates at start-up unless MIGRATE_ON_START is off', () => {
    expect(loadConfig({}).MIGRATE_ON_START).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: 'false' }).MIGRATE_ON_START).toBe(false);
  });

  it('refuses to start the oracle in production without its signing key', () => {
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      PIN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      CHAIN_GRPC_URL: 'fixture',
      USSD_AGGREGATOR_AUTH: 'network',
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
      CHAIN_GRPC_URL: 'fixture',
      USSD_AGGREGATOR_AUTH: 'network',
    };
    expect(() => loadConfig({ ...production, PIN_SCRYPT_LOG2N: '13' })).toThrow(
      /PIN_SCRYPT_LOG2N of at least 14/,
    );
    expect(loadConfig({ ...production, PIN_SCRYPT_LOG2N: '15' }).PIN_SCRYPT_LOG2N).toBe(15);
  });

  it('names an invalid value alone, before any production rule it would also break', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', HOST: 'not a host' })).toThrow(
      new ConfigError(
        'Invalid configuration:\n  HOST: an IP address (0.0.0.0, 127.0.0.1, ::) or a host name',
      ),
    );
    expect(() => loadConfig({ OPENAI_MODEL: 'llama3' })).toThrow(
      new ConfigError('Invalid configuration:\n  OPENAI_MODEL is set but OPENAI_BASE_URL is not'),
    );
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
    expect(config.TRUST_PROXY_ENABLED).toBe(1);
    expect(config.CHAIN_LEGACY_PREFIXES).toEqual(['ixo-legacy', 'old']);
    expect(config.ENABLED_PARTS).toEqual(['ussd']);
  });
});

describe('chain prefixes', () => {
  it('refuses a legacy prefix that is not one path segment', () => {
    expect(() => loadConfig({ CHAIN_LEGACY_PREFIXES: 'ixo,bad/prefix' })).toThrow(/CHAIN_LEGACY_PREFIXES/);
  });
});
