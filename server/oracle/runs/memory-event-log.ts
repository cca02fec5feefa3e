import type { RunEventLog, RunEventRecord } from './event-log.js';

interface Entry {
  records: RunEventRecord[];
  listeners: Set<(record: RunEventRecord) => void>;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The in-process run event log (embedded default, one instance). A run's events are dropped `retain` seconds
 * after it ends; a run that is never ended (its instance died) is dropped after `maxAgeSeconds`.
 */
export function createMemoryRunEventLog(options: { maxAgeSeconds: number }): RunEventLog {
  const runs = new Map<string, Entry>();
  const entry = (runId: string): Entry => {
    let e = runs.get(runId);
    if (!e) {
      e = { records: [], listeners: new Set(), timer: undefined };
      runs.set(runId, e);
      schedule(runId, e, options.maxAgeSeconds);
    }
    return e;
  };
  const schedule = (runId: string, e: Entry, seconds: number): void => {
    clearTimeout(e.timer);
    e.timer = setTimeout(() => {
      if (e.listeners.size === 0) runs.delete(runId);
      else schedule(runId, e, 60);
    }, seconds * 1000);
    e.timer.unref();
  };
  const read = (runId: string, after: number): Promise<RunEventRecord[]> => {
    const records = runs.get(runId)?.records ?? [];
    // Ids grow, so the events after `after` are a suffix.
    let i = records.length;
    while (i > 0 && (records[i - 1]?.id ?? 0) > after) i--;
    return Promise.resolve(records.slice(i));
  };
  return {
    append(runId, record) {
      const e = entry(runId);
      e.records.push(record);
      for (const listener of e.listeners) listener(record);
      return undefined;
    },
    read,
    // Every event of a run is in this process already.
    readStarted: read,
    subscribe(runId, listener) {
      const e = entry(runId);
      e.listeners.add(listener);
      return Promise.resolve(() => {
        e.listeners.delete(listener);
      });
    },
    unstored: () => 0,
    retain(runId, seconds) {
      const e = runs.get(runId);
      if (e) schedule(runId, e, seconds);
      return Promise.resolve();
    },
    close() {
      for (const e of runs.values()) clearTimeout(e.timer);
      runs.clear();
      return Promise.resolve();
    },
  };
}
