import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { isInFlight } from '../../../contracts/run-states.js';
import { duplicateSubscriber } from '../../redis-subscriber.js';
import type { RunStore } from '../store/runs.js';
import type { Clock } from './clock.js';
import { retryStore } from './store-retry.js';

/** Commands and results that must reach whichever instance holds a run or waits for a browser call. */
export type ControlMessage =
  | { type: 'abort'; runId: string; reason: 'aborted' | 'superseded' | 'deleted' }
  | {
      type: 'frontend_result';
      toolCallId: string;
      /** The user whose socket answered; the waiting call ignores anyone but the session's owner. */
      userDid: string;
      sessionId: string;
      result: unknown;
      error: string | undefined;
    }
  | {
      /** A tool call's approval was decided (by its user, or by the run at its expiry): wakes the waiting run. */
      type: 'approval_decided';
      toolCallId: string;
      sessionId: string;
    };

/** Publish/subscribe between the instances of the agent service (in process, or Redis pub/sub). */
export interface ControlBus {
  publish(message: ControlMessage): Promise<void>;
  subscribe(listener: (message: ControlMessage) => void): () => void;
  close(): Promise<void>;
}

/** One instance: messages go straight to this process's listeners. */
export function createLocalControlBus(): ControlBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(message) {
      emitter.emit('message', message);
      return Promise.resolve();
    },
    subscribe(listener) {
      emitter.on('message', listener);
      return () => emitter.off('message', listener);
    },
    close() {
      emitter.removeAllListeners();
      return Promise.resolve();
    },
  };
}

/** Every instance: one channel (`<prefix>control`) on Redis; each instance hears its own messages too. */
export function createRedisControlBus(redis: Redis, prefix: string): ControlBus {
  const channel = `${prefix}control`;
  const local = createLocalControlBus();
  const sub = duplicateSubscriber(redis);
  sub.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    try {
      void local.publish(JSON.parse(text) as ControlMessage);
    } catch {
      // not ours
    }
  });
  // Not awaited: with Redis down the service starts and the subscription happens once it answers
  // (ioredis subscribes again after every reconnect).
  sub.subscribe(channel).catch(() => undefined);
  return {
    async publish(message) {
      await redis.publish(channel, JSON.stringify(message));
    },
    subscribe: (listener) => local.subscribe(listener),
    async close() {
      await local.close();
      await sub.quit().catch(() => sub.disconnect());
    },
  };
}

/** How long {@link whenStopped} waits for a run to end, and how often it looks. */
const STOP_WAIT_MS = 2000;
const STOP_POLL_MS = 50;

/**
 * Resolves once a run whose `abort` was published is recorded ended, or after {@link STOP_WAIT_MS} (its
 * instance may be gone: the run is then ended by whoever claims it).
 */
export async function whenStopped(
  deps: { runs: RunStore; clock?: Clock | undefined },
  runId: string,
): Promise<void> {
  await retryStore(() => deps.runs.get(runId), {
    everyMs: STOP_POLL_MS,
    forMs: STOP_WAIT_MS,
    retryOn: () => false,
    until: (row) => !row || !isInFlight(row.status),
    clock: deps.clock,
  });
}
