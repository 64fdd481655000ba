import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The hub's Prometheus metrics, on a registry of its own (no module-level default registry, so
 * two hubs in one test process do not share counters). Served at GET /metrics
 * (observability.routes.ts); loaded only when HUB_METRICS_TOKEN is set, as metrics.ts's
 * `HubMetrics` (checked there).
 */
export class PrometheusMetrics {
  readonly registry = new Registry();

  readonly httpRequests = this.counter(
    'makerspace_http_requests_total',
    'HTTP requests answered, by method, route pattern and status code',
    ['method', 'route', 'status'],
  );

  readonly httpSeconds = this.histogram(
    'makerspace_http_request_duration_seconds',
    'Time from request to response, by method and route pattern',
    ['method', 'route'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

  readonly switchOns = this.counter(
    'makerspace_switch_ons_total',
    'Switch-on requests by outcome: switched, or the deny or failure reason',
    ['outcome'],
  );

  readonly switchOnSeconds = this.histogram(
    'makerspace_switch_on_duration_seconds',
    'Time from a switch-on request to its answer (policy, command and the agent reply), by outcome',
    ['outcome'],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

  readonly logsIngested = this.counter(
    'makerspace_bridge_logs_ingested_total',
    'Resource logs received from bridges over MQTT and stored (rate() gives the ingest rate)',
  );

  readonly bridgeMessagesQueued = this.gauge(
    'makerspace_bridge_messages_queued',
    'Bridge messages received and not yet handled (the ingest queue depth)',
  );

  readonly webhookDeliveries = this.counter(
    'makerspace_webhook_deliveries_total',
    'Webhook delivery attempts by outcome: delivered, or failed',
    ['outcome'],
  );

  readonly bridgeConnectsRefused = this.counter(
    'makerspace_bridge_connects_refused_total',
    'MQTT connections refused, by reason: badKey, wrongClientId, throttled (too many failed authentications), takeoverDamped (a second device with the same key)',
    ['reason'],
  );

  readonly bridgeTakeovers = this.counter(
    'makerspace_bridge_takeovers_total',
    'Connections that replaced a live connection of the same bridge, by kind: reconnect, or duplicate (more than 3 in a minute: two devices use the key)',
    ['kind'],
  );

  /** Set by the broker once it runs; counted at each scrape. */
  countBridgesOnline: () => number = () => 0;

  constructor() {
    const self = this;
    new Gauge({
      name: 'makerspace_bridges_online',
      help: 'Bridges connected to this hub now',
      registers: [this.registry],
      collect() {
        this.set(self.countBridgesOnline());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'makerspace_hub_' });
  }

  private counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ) {
    return new Histogram<L>({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  private gauge(name: string, help: string) {
    return new Gauge({ name, help, registers: [this.registry] });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
