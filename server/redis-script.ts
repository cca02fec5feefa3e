import type { ChainableCommander, Redis } from 'ioredis';

/**
 * A Lua script as a command of `redis` and of its pipelines (ioredis's `defineCommand`: sent whole once per
 * connection, then as EVALSHA, and whole again after a NOSCRIPT). The first `numberOfKeys` arguments are its
 * keys. Answers a function that runs it on the client or queues it on one of its pipelines. `name` must be the
 * same script wherever it is used on that client.
 */
export function scriptCommand<A extends (string | number)[]>(
  redis: Redis,
  name: string,
  lua: string,
  numberOfKeys: number,
): (on: Redis | ChainableCommander, ...args: A) => Promise<unknown> {
  if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
  return (on, ...args) => {
    const command = (on as unknown as Record<string, (...a: A) => Promise<unknown>>)[name];
    if (!command) throw new Error(`the Redis command ${name} is defined on another client`);
    return command.apply(on, args);
  };
}
