/** A headline figure of a bench, as it writes it to BENCH_JSON_OUT and bench/run-all.ts reads it. */
export interface Figure {
  id: string;
  label: string;
  value: number;
  unit: string;
  better: 'higher' | 'lower';
}
