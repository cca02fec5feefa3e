// Issue 36, items 4 and 5: what production accepted at the trust boundaries. A literal `OPERATOR_TOKEN=...`
// (three characters) opened /metrics, ORACLE_CORS_ORIGINS=* came in from .env.example with a warning only,
// and nothing had to guard POST /api/ussd. Each is now a production rule of its owner's configuration
// (server/config.ts, server/*/config.ts), refused by loadConfig with the ConfigError `npm start` stops with.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, productionWarnings } from '../../server/config.js';
import { newOracleKey } from '../helpers/oracle/oracle-app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const hex24 = (): string => randomBytes(24).toString('hex');
const signingKey = await newOracleKey();

/** A production environment that starts: every required value real. */
const production: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://gateway:4f1c9a0b7e2d@127.0.0.1:5432/gateway',
  PIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  ORACLE_SIGNING_KEY: signingKey,
  CHAIN_GRPC_URL: 'ixo-node.internal:9090',
  ORACLE_CORS_ORIGINS: 'https://app.example.org',
  USSD_AGGREGATOR_SECRET: hex24(),
};

/** The message of the ConfigError loadConfig throws for `env`, or `started` when it does not throw. */
function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
    return 'started';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

const REFUSING = 'Refusing to start in production without:\n  ';
const AGGREGATOR_LINE =
  'USSD_AGGREGATOR_ALLOWLIST, USSD_AGGREGATOR_SECRET or USSD_AGGREGATOR_AUTH=network (who may call POST /api/ussd: the aggregator\'s addresses, its shared secret, or a network that lets only the aggregator reach the route; docs/ussd-gateway.md, "Who may call it")';
const CORS_LINE =
  'ORACLE_CORS_ORIGINS other than * (the origins of the web apps that call the oracle, e.g. https://app.example.org)';
const weak = (name: string, why: string): string =>
  `${name} of at least 24 characters, not a placeholder (this one is ${why}; openssl rand -hex 24)`;

describe('production refuses an unauthenticated USSD aggregator', () => {
  it('started with POST /api/ussd open to anyone (no allowlist, secret or network setting)', () => {
    const { USSD_AGGREGATOR_SECRET: _, ...open } = production;
    expect(refusal(open)).toBe(REFUSING + AGGREGATOR_LINE);
    // Each of the three protections is enough.
    expect(refusal({ ...open, USSD_AGGREGATOR_ALLOWLIST: '196.201.214.0/24' })).toBe('started');
    expect(refusal({ ...open, USSD_AGGREGATOR_SECRET: hex24() })).toBe('started');
    expect(refusal({ ...open, USSD_AGGREGATOR_AUTH: 'network' })).toBe('started');
    // Only the USSD part needs one.
    expect(refusal({ ...open, ENABLED_PARTS: 'chain,oracle' })).toBe('started');
    // Outside production nothing changes unless configured.
    const development = loadConfig({ NODE_ENV: 'development' });
    expect([
      development.USSD_AGGREGATOR_ALLOWLIST,
      development.USSD_AGGREGATOR_SECRET,
      development.USSD_AGGREGATOR_AUTH,
    ]).toEqual([[], undefined, undefined]);
  });

  it('names a malformed allowlist entry or setting in any environment', () => {
    expect(refusal({ USSD_AGGREGATOR_ALLOWLIST: '10.0.0.0/33' })).toBe(
      'Invalid configuration:\n  USSD_AGGREGATOR_ALLOWLIST.0: an IPv4 or IPv6 address, or a CIDR like 196.201.214.0/24 or 2001:db8::/32',
    );
    expect(refusal({ USSD_AGGREGATOR_AUTH: 'none' })).toBe(
      'Invalid configuration:\n  USSD_AGGREGATOR_AUTH: network (the network lets only the aggregator reach POST /api/ussd), or unset; not "none"',
    );
    expect(
      loadConfig({ USSD_AGGREGATOR_ALLOWLIST: ' 192.0.2.10, 2001:db8::/32 ' }).USSD_AGGREGATOR_ALLOWLIST,
    ).toEqual(['192.0.2.10', '2001:db8::/32']);
  });
});

describe('production refuses placeholder and short secrets', () => {
  const PLACEHOLDERS = [
    '...',
    'changeme',
    'change-me',
    'CHANGE_ME',
    'secret',
    'password',
    'xxx',
    'x'.repeat(40),
    '0'.repeat(32),
    'ab'.repeat(20),
    '<your-operator-token-goes-here>',
    'changeme-changeme-changeme-changeme',
    'my-super-secret-operator-value-2024',
    'replace-with-a-random-token-of-your-own',
  ];

  it.each(['OPERATOR_TOKEN', 'CHAIN_REST_TOKEN', 'USSD_AGGREGATOR_SECRET'])(
    'a literal %s=... (three characters) was accepted in production',
    (name) => {
      for (const value of PLACEHOLDERS) {
        expect({ value, refusal: refusal({ ...production, [name]: value }) }).toEqual({
          value,
          refusal: REFUSING + weak(name, 'a placeholder'),
        });
      }
      // Short: fewer than 24 characters, however random.
      const short = randomBytes(8).toString('hex');
      expect(refusal({ ...production, [name]: short })).toBe(REFUSING + weak(name, '16 characters'));
      // What `openssl rand -hex 24` and `openssl rand -base64 32` print, and 24 random characters exactly.
      for (const value of [hex24(), randomBytes(32).toString('base64'), randomBytes(18).toString('base64')]) {
        expect({ value, refusal: refusal({ ...production, [name]: value }) }).toEqual({
          value,
          refusal: 'started',
        });
      }
      // Development takes what it is given.
      expect(refusal({ NODE_ENV: 'development', [name]: '...' })).toBe('started');
    },
  );

  it('a placeholder PIN key, signing key or database password counts as missing, each named in one message', () => {
    expect(
      refusal({
        ...production,
        PIN_ENCRYPTION_KEY: '...',
        ORACLE_SIGNING_KEY: '...',
        DATABASE_URL: 'postgres://gateway:...@127.0.0.1:5432/gateway',
        OPERATOR_TOKEN: '...',
      }),
    ).toBe(
      REFUSING +
        [
          'DATABASE_URL with its real password (this one is a placeholder)',
          weak('OPERATOR_TOKEN', 'a placeholder'),
          'PIN_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32)',
          "ORACLE_SIGNING_KEY (the oracle's Ed25519 key: npm run oracle:key)",
        ].join('\n  '),
    );
  });
});

describe('production refuses CORS open to any origin', () => {
  it('ORACLE_CORS_ORIGINS=* (as .env.example shipped it) was only a warning in production', () => {
    expect(refusal({ ...production, ORACLE_CORS_ORIGINS: '*' })).toBe(REFUSING + CORS_LINE);
    // Empty or unset is `*`.
    expect(refusal({ ...production, ORACLE_CORS_ORIGINS: '' })).toBe(REFUSING + CORS_LINE);
    const { ORACLE_CORS_ORIGINS: _, ...unset } = production;
    expect(refusal(unset)).toBe(REFUSING + CORS_LINE);
    expect(refusal({ ...production, ORACLE_CORS_ORIGINS: 'https://app.example.org,*' })).toBe(
      REFUSING + CORS_LINE,
    );
    // Without the oracle nothing reads it.
    expect(refusal({ ...unset, ENABLED_PARTS: 'ussd,chain' })).toBe('started');
    // Development keeps its open default, and production no longer warns about what it refuses.
    expect(loadConfig({}).ORACLE_CORS_ORIGINS).toEqual(['*']);
    expect(productionWarnings(loadConfig({ ...production, ENABLED_PARTS: 'ussd,chain' }))).toEqual([]);
  });
});

const operating = await readFile('docs/operating.md', 'utf8');
const configure = operating.split('\n## Configure\n')[1]?.split('\n## ')[0] ?? '';
/** The command of docs/operating.md "Configure" that writes `.env`: a heredoc, a fresh secret per `$(…)`. */
const heredoc = /\n(cat >> \.env <<EOF\n[\s\S]*?\nEOF)\n```/.exec(configure)?.[1] ?? '';
const envExample = parseEnv(await readFile('.env.example', 'utf8')) as Record<string, string>;

/**
 * The `.env` that command writes, as bash writes it, in this checkout (for `npm run -s oracle:key`), with the
 * `$pw` of the page's PostgreSQL step.
 */
async function writtenEnv(): Promise<{ text: string; env: Record<string, string> }> {
  const script = `pw=${hex24()}\n${heredoc.replace('cat >> .env <<EOF', 'cat <<EOF')}\n`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: ROOT });
  return { text: stdout, env: parseEnv(stdout) as Record<string, string> };
}

describe('the shipped configuration files, copied for production', () => {
  it("docs/operating.md's .env names every secret a public deployment needs, each generated as the file is written", () => {
    const lines = heredoc.split('\n').slice(1, -1);
    const line = (name: string): string => lines.find((l) => l.startsWith(`${name}=`)) ?? '';
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'ORACLE_CORS_ORIGINS', 'CHAIN_GRPC_URL']) {
      expect(line(name), name).not.toBe('');
    }
    expect(line('DATABASE_URL')).toContain(':$pw@');
    expect(line('PIN_ENCRYPTION_KEY')).toBe('PIN_ENCRYPTION_KEY=$(openssl rand -base64 32)');
    for (const name of ['USSD_AGGREGATOR_SECRET', 'OPERATOR_TOKEN', 'CHAIN_REST_TOKEN']) {
      expect(line(name)).toBe(`${name}=$(openssl rand -hex 24)`);
    }
    expect(lines).toContain("$(npm run -s oracle:key | grep '^ORACLE_SIGNING_KEY=')");
  });

  it("docs/operating.md's .env, written as the page says, starts in production, each key once and each secret fresh", async () => {
    const [first, second] = [await writtenEnv(), await writtenEnv()];
    const keys = first.text
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=')[0]);
    expect(keys).toEqual([...new Set(keys)]);
    expect(first.env['ORACLE_SIGNING_KEY']).toMatch(/^\S{40,}$/);
    expect(refusal(first.env)).toBe('started');
    for (const name of [
      'PIN_ENCRYPTION_KEY',
      'ORACLE_SIGNING_KEY',
      'USSD_AGGREGATOR_SECRET',
      'OPERATOR_TOKEN',
      'CHAIN_REST_TOKEN',
      'DATABASE_URL',
    ]) {
      expect(first.env[name], name).not.toBe(second.env[name]);
    }
  }, 60_000);

  it('.env.example copied for production: refused until the required values are filled in, then it starts', () => {
    const copy = { ...envExample, NODE_ENV: 'production', DATABASE_URL: production['DATABASE_URL'] ?? '' };
    expect(refusal(copy)).toBe(
      REFUSING +
        [
          'PIN_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32)',
          AGGREGATOR_LINE,
          "CHAIN_GRPC_URL (host:port of an IXO node's gRPC endpoint; `fixture` for the embedded fixture node and its fixture data)",
          "ORACLE_SIGNING_KEY (the oracle's Ed25519 key: npm run oracle:key)",
          CORS_LINE,
        ].join('\n  '),
    );
    expect(refusal({ ...copy, ...production })).toBe('started');
  });
});
