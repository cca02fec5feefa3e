import { initContract } from '@ts-rest/core';
import { chainContract } from './chain.js';
import { creditsContract } from './credits.js';
import { memoryContract } from './memory.js';
import { oracleContract } from './oracle.js';
import { preferencesContract } from './preferences.js';
import { systemContract } from './system.js';
import { ussdContract } from './ussd.js';

const c = initContract();

/**
 * The whole HTTP API: one router per part of the spec. The OpenAPI document, the server and the SDK are
 * all derived from this object.
 */
export const contract = c.router(
  {
    system: systemContract,
    ussd: ussdContract,
    chain: chainContract,
    oracle: oracleContract,
    preferences: preferencesContract,
    memory: memoryContract,
    credits: creditsContract,
  },
  { strictStatusCodes: true },
);

export type Contract = typeof contract;
