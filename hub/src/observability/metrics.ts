/*
 * The hub's metrics as the code counts them. With HUB_METRICS_TOKEN set they are Prometheus'
 * (prometheus-metrics.ts, served at GET /metrics); without it nothing can read them, so they
 * count nothing and prom-client is never loaded (no memory, no event-loop sampling, no cost per
 * request).
 */

/** Outcome label of a switch-on: `switched`, or the reason it was refused or failed. */
export type SwitchOnOutcome = string;

type Labels<L extends string> = Partial<Record<L, string | number>>;

export interface MetricCounter<L extends string = never> {
  inc(labels: Labels<L>, value?: number): void;
  inc(value?: number): void;
}

export interface MetricGauge {
  inc(value?: number): void;
  dec(value?: number): void;
}

export interface MetricHistogram<L extends string> {
  observe(labels: Labels<L>, value: number): void;
}

export interface HubMetrics {
  readonly httpRequests: MetricCounter<'method' | 'route' | 'status'>;
  readonly httpSeconds: MetricHistogram<'method' | 'route'>;
  readonly switchOns: MetricCounter<'outcome'>;
  readonly switchOnSeconds: MetricHistogram<'outcome'>;
  readonly logsIngested: MetricCounter;
  readonly bridgeMessagesQueued: MetricGauge;
  readonly webhookDeliveries: MetricCounter<'outcome'>;
  readonly bridgeConnectsRefused: MetricCounter<'reason'>;
  readonly bridgeTakeovers: MetricCounter<'kind'>;
  /** Set by the broker once it runs; counted at each scrape. */
  countBridgesOnline: () => number;
  /** The metrics in Prometheus' text format, and its content type. */
  text(): Promise<string>;
  readonly contentType: string;
}

const nothing = { inc() {}, dec() {}, observe() {} };

/** Metrics nobody reads (GET /metrics is off): every count is dropped. */
export const quietMetrics: HubMetrics = {
  httpRequests: nothing,
  httpSeconds: nothing,
  switchOns: nothing,
  switchOnSeconds: nothing,
  logsIngested: nothing,
  bridgeMessagesQueued: nothing,
  webhookDeliveries: nothing,
  bridgeConnectsRefused: nothing,
  bridgeTakeovers: nothing,
  countBridgesOnline: () => 0,
  text: async () => '',
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
};

/** Prometheus' metrics when something may read them (`served`: HUB_METRICS_TOKEN is set). */
export async function hubMetrics(served: boolean): Promise<HubMetrics> {
  if (!served) return quietMetrics;
  const { PrometheusMetrics } = await import('./prometheus-metrics.js');
  return new PrometheusMetrics();
}
