// autocannon ships no types; these cover the part of its v8 API the benchmark uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      socketPath?: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      warmup?: { connections?: number; duration?: number };
    }

    /** autocannon's summary of one histogram; latency values are whole milliseconds. */
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }

    interface Result {
      requests: Histogram;
      latency: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
    }

    interface Instance extends PromiseLike<Result> {
      /** Emitted for each response of the measured run (not the warm-up), with its time in fractional ms. */
      on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
