import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../server/config.js';
import { oracleConfigSections } from '../../../server/oracle/config-sections.js';
import { creditsManifest } from '../../../server/oracle/plugins/credits/index.js';
import {
  parseFeatureList,
  PluginBootError,
  resolvePlugins,
} from '../../../server/oracle/runtime/features.js';
import {
  definePlugin,
  type OraclePlugin,
  type PluginManifest,
} from '../../../server/oracle/runtime/plugin.js';

const plugin = (manifest: Partial<PluginManifest> & { name: string }): OraclePlugin =>
  definePlugin({
    manifest: {
      title: manifest.name,
      summary: 'A plugin for the tests.',
      visibility: 'always',
      stability: 'experimental',
      category: 'core',
      defaultOn: true,
      ...manifest,
    },
  });

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

const decide = (
  plugins: OraclePlugin[],
  features: Record<string, boolean> = {},
  env: Record<string, string> = {},
) => {
  const { logger, lines } = capture();
  const decisions = resolvePlugins(plugins, features, env, oracleConfigSections, logger);
  return { on: decisions.filter((d) => d.enabled).map((d) => d.manifest.name), decisions, lines };
};

describe('features: which plugins load', () => {
  const base = plugin({ name: 'base' });
  const child = plugin({ name: 'child', dependsOn: ['base'] });
  const optional = plugin({ name: 'optional', defaultOn: false });
  const needsKey = plugin({ name: 'needs-key', requiredEnv: ['SOME_API_KEY'] });

  it('absent means the manifest default; false never loads; true forces an off-by-default plugin', () => {
    expect(decide([base, optional]).on).toEqual(['base']);
    expect(decide([base, optional], { base: false }).on).toEqual([]);
    expect(decide([base, optional], { optional: true }).on).toEqual(['base', 'optional']);
  });

  it('boots dependencies first, whatever the registration order', () => {
    expect(decide([child, base]).on).toEqual(['base', 'child']);
  });

  it('switching a plugin off switches off what depends on it, with a log line', () => {
    const { on, decisions, lines } = decide([base, child], { base: false });
    expect(on).toEqual([]);
    expect(decisions.find((d) => d.manifest.name === 'child')?.reason).toBe(
      'switched off because base is off',
    );
    expect(
      lines.some(
        (l) => l['plugin'] === 'child' && String(l['msg']).includes('switched off because base is off'),
      ),
    ).toBe(true);
  });

  it('is a boot error to force on a plugin whose dependency is off, naming both', () => {
    expect(() => decide([base, child], { base: false, child: true })).toThrow(
      new PluginBootError('plugin child is switched on but depends on base, which is off'),
    );
  });

  it('is a boot error to force on a plugin without its environment variables, naming them', () => {
    expect(() => decide([needsKey], { 'needs-key': true })).toThrow(
      /needs-key is switched on but needs SOME_API_KEY/,
    );
    expect(decide([needsKey], { 'needs-key': true }, { SOME_API_KEY: 'x' }).on).toEqual(['needs-key']);
    // Checked against the parsed configuration: an empty value or list is not set.
    expect(() => decide([needsKey], { 'needs-key': true }, { SOME_API_KEY: '' })).toThrow(
      /needs SOME_API_KEY/,
    );
    const auto = decide([needsKey]);
    expect(auto.on).toEqual([]);
    expect(auto.decisions[0]?.reason).toBe('missing SOME_API_KEY');
  });

  it('is a boot error to name an unknown plugin, a missing dependency, a cycle or a bad manifest', () => {
    expect(() => decide([base], { nope: true })).toThrow('features: unknown plugin "nope" (known: base)');
    expect(() => decide([child])).toThrow('plugin child depends on base, which is not registered');
    const a = plugin({ name: 'alpha', dependsOn: ['beta'] });
    const b = plugin({ name: 'beta', dependsOn: ['alpha'] });
    expect(() => decide([a, b])).toThrow(/cycle: alpha → beta → alpha/);
    expect(() => decide([plugin({ name: 'Bad Name' })])).toThrow(/invalid manifest/);
    expect(() => decide([base, base])).toThrow('plugin base is registered twice');
  });

  it("reads a plugin's variables from the platform's configuration, which composes its manifest's config", () => {
    // The credits plugin's variables are parsed with every other: a bad value stops the start.
    expect(() => loadConfig({ CREDITS_PER_UNIT: '-1' })).toThrow(/CREDITS_PER_UNIT/);
    expect(loadConfig({ CREDITS_DENOM: 'uatom' }).CREDITS_DENOM).toBe('uatom');
    const credits = plugin({ ...creditsManifest, name: 'credits' });
    expect(decide([credits], { credits: true }).on).toEqual(['credits']);
    // A plugin whose variables the platform's schema does not compose would read nothing: a boot error.
    const stray = plugin({
      name: 'stray',
      config: { title: 'Stray', schema: z.object({ STRAY_KEY: z.string().optional().describe('A key.') }) },
    });
    expect(() => decide([stray])).toThrow(
      "plugin stray: its config is not composed into the platform's (add it to oracleConfigSections in server/oracle/config-sections.ts)",
    );
  });
});

describe('ORACLE_FEATURES', () => {
  it('reads `name` as on and `-name` as off', () => {
    expect(parseFeatureList(['credits', '-user-preferences', '+memory'])).toEqual({
      credits: true,
      'user-preferences': false,
      memory: true,
    });
  });
});
