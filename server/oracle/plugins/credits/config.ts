import { z } from 'zod';
import type { ConfigSection, PlatformFacts } from '../../../config-section.js';
import { optionalMatching } from '../../../env-values.js';

const schema = z.object({
  CREDITS_INITIAL_BALANCE: z.coerce
    .number()
    .min(0)
    .max(1e12)
    .default(10)
    .describe("A new user's balance, in credits."),
  CREDITS_PRICE_PER_TURN: z.coerce
    .number()
    .min(0)
    .max(1e9)
    .default(1)
    .describe('What one turn costs, in credits (shown in `GET /config` `price`).'),
  CREDITS_PAY_TO_ADDRESS: optionalMatching(
    /^[a-z]{1,20}1[02-9ac-hj-np-z]{20,90}$/,
    'a bech32 account address, e.g. ixo1…',
  ).describe("The chain account users pay (`ixo1…`); unset: the fixture oracle's admin account."),
  CREDITS_DENOM: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/)
    .default('uixo')
    .describe('The coin users pay in (its smallest unit).'),
  CREDITS_PER_UNIT: z.coerce
    .number()
    .positive()
    .max(1e9)
    .default(0.001)
    .describe('Credits one smallest unit of `CREDITS_DENOM` buys (0.001: 1 credit per 1,000 uixo).'),
});

export type CreditsConfig = z.output<typeof schema>;

/** What the credits rules read besides the credits variables. */
type Reads = CreditsConfig &
  PlatformFacts & { ORACLE_FEATURES: string[]; CHAIN_GRPC_URL?: string | undefined };

const creditsOn = (config: Reads): boolean =>
  config.ENABLED_PARTS.includes('oracle') && config.ORACLE_FEATURES.includes('credits');

/** The credits plugin's variables (read when `ORACLE_FEATURES` switches it on) and its production rules. */
export const creditsConfig: ConfigSection<typeof schema, Reads> = {
  title: 'Credits plugin (`ORACLE_FEATURES=credits`)',
  schema,
  production: [
    {
      variables: ['CREDITS_PAY_TO_ADDRESS'],
      rule: 'Required when `ORACLE_FEATURES` switches credits on.',
      refuse: (config) =>
        creditsOn(config) && !config.CREDITS_PAY_TO_ADDRESS
          ? 'CREDITS_PAY_TO_ADDRESS (the account users pay when the credits plugin is on)'
          : undefined,
    },
    {
      variables: ['CHAIN_GRPC_URL'],
      rule: 'Required when `ORACLE_FEATURES` switches credits on: payments are verified on chain.',
      refuse: (config) =>
        creditsOn(config) && !config.CHAIN_GRPC_URL
          ? 'CHAIN_GRPC_URL (payments are verified on chain; the embedded fixture node accepts development transactions)'
          : undefined,
    },
  ],
};
