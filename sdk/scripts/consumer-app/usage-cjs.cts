// The require() side: the .d.cts declarations resolve and name the same API.
import sdk = require('@open-oracles/oracles-client-sdk');
import chain = require('@open-oracles/oracles-client-sdk/chain');
import live = require('@open-oracles/oracles-client-sdk/live-agent');
import kit = require('@open-oracles/oracles-client-sdk/msw');

export const api: [
  typeof sdk.useChat,
  typeof chain.createChainClient,
  typeof live.useLiveAgent,
  typeof kit.createOracleHandlers,
] = [sdk.useChat, chain.createChainClient, live.useLiveAgent, kit.createOracleHandlers];
