/**
 * `@open-oracles/oracles-client-sdk/live-agent`: encrypted voice and video calls with a live agent
 * (LiveKit). A separate entry point, so apps without calls never load livekit-client.
 *
 * @packageDocumentation
 */
export { useLiveAgent } from './live-agent/use-live-agent.js';
export type {
  LiveAgentConnectArgs,
  LiveAgentRoom,
  LiveAgentRoomOptions,
  LiveAgentState,
  UseLiveAgentOptions,
  UseLiveAgentResult,
} from './live-agent/use-live-agent.js';
