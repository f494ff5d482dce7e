/**
 * The server's metrics in the Prometheus text exposition format (version 0.0.4): counters,
 * gauges read when scraped, and histograms with fixed buckets. Small and dependency-free; one
 * registry per server.
 */

type Labels = Readonly<Record<string, string>>;

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  const esc = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
  return `{${keys.map((k) => `${k}="${esc(labels[k]!)}"`).join(",")}}`;
}

function num(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  return String(x);
}

interface Metric {
  render(): string;
}

/** A monotonically increasing count, optionally split by labels. */
export class Counter implements Metric {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }

  /** The current value for `labels` (0 if never counted). */
  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.values.size === 0) lines.push(`${this.name} 0`);
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${labelText(labels)} ${num(value)}`);
    return lines.join("\n");
  }
}

/** A value read when the metrics are scraped: a gauge, or a counter kept elsewhere. */
export class Gauge implements Metric {
  constructor(readonly name: string, readonly help: string, private readonly read: () => number, readonly kind: "gauge" | "counter" = "gauge") {}

  render(): string {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.kind}`, `${this.name} ${num(this.read())}`].join("\n");
  }
}

/** Observations counted into cumulative buckets (upper bounds `le`), with their sum and count. */
export class Histogram implements Metric {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(readonly name: string, readonly help: string, readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) this.counts[i]!++;
  }

  /** Observations so far. */
  get observations(): number {
    return this.count;
  }

  /** The sum of the observations. */
  get total(): number {
    return this.sum;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.buckets.forEach((le, i) => lines.push(`${this.name}_bucket{le="${num(le)}"} ${this.counts[i]}`));
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`, `${this.name}_sum ${num(this.sum)}`, `${this.name}_count ${this.count}`);
    return lines.join("\n");
  }
}

/** A set of metrics rendered together. */
export class MetricsRegistry {
  private readonly metrics: Metric[] = [];

  counter(name: string, help: string): Counter {
    return this.add(new Counter(name, help));
  }

  gauge(name: string, help: string, read: () => number): Gauge {
    return this.add(new Gauge(name, help, read));
  }

  /** A counter whose value is kept elsewhere and read when scraped. */
  counterFrom(name: string, help: string, read: () => number): Gauge {
    return this.add(new Gauge(name, help, read, "counter"));
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.add(new Histogram(name, help, buckets));
  }

  /** The exposition text (`Content-Type: text/plain; version=0.0.4`). */
  render(): string {
    return `${this.metrics.map((m) => m.render()).join("\n")}\n`;
  }

  private add<M extends Metric>(metric: M): M {
    this.metrics.push(metric);
    return metric;
  }
}
