import { Writable } from 'node:stream';

/** A logged line as pino writes it: level and message, and whatever else the line carries. */
export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/** A stream for `createLogger(level, stream)` that keeps every line it is given, parsed, in `lines`. */
export function captureLogs(): { lines: LogLine[]; stream: Writable } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { lines, stream };
}
