import {
  createLocalControlBus,
  type ControlBus,
  type ControlMessage,
} from '../../../server/oracle/runs/control-bus.js';

/**
 * The in-process control bus, with what was published on it kept: two components on one such bus stand for
 * two instances, and `published` shows what went over the bus between them.
 */
export function countingBus(): { bus: ControlBus; published: ControlMessage[] } {
  const inner = createLocalControlBus();
  const published: ControlMessage[] = [];
  return {
    published,
    bus: {
      ...inner,
      publish(message) {
        published.push(message);
        return inner.publish(message);
      },
    },
  };
}
