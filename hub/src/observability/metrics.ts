import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Outcome label of a switch-on: `switched`, or the reason it was refused or failed. */
export type SwitchOnOutcome = string;

/**
 * The hub's Prometheus metrics, on a registry of its own (no module-level default registry, so
 * two hubs in one test process do not share counters). Served at GET /metrics (metrics.routes.ts).
 */
export class HubMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'makerspace_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpSeconds = new Histogram({
    name: 'makerspace_http_request_duration_seconds',
    help: 'Time from request to response, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly switchOns = new Counter({
    name: 'makerspace_switch_ons_total',
    help: 'Switch-on requests by outcome: switched, or the deny or failure reason',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly switchOnSeconds = new Histogram({
    name: 'makerspace_switch_on_duration_seconds',
    help: 'Time from a switch-on request to its answer (policy, command and the agent reply), by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly logsIngested = new Counter({
    name: 'makerspace_bridge_logs_ingested_total',
    help: 'Resource logs received from bridges over MQTT and stored (rate() gives the ingest rate)',
    registers: [this.registry],
  });

  readonly bridgeMessagesQueued = new Gauge({
    name: 'makerspace_bridge_messages_queued',
    help: 'Bridge messages received and not yet handled (the ingest queue depth)',
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'makerspace_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, or failed',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly bridgeConnectsRefused = new Counter({
    name: 'makerspace_bridge_connects_refused_total',
    help: 'MQTT connections refused, by reason: badKey, wrongClientId, throttled (too many failed authentications), takeoverDamped (a second device with the same key)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly bridgeTakeovers = new Counter({
    name: 'makerspace_bridge_takeovers_total',
    help: 'Connections that replaced a live connection of the same bridge, by kind: reconnect, or duplicate (more than 3 in a minute: two devices use the key)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

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

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
