/**
 * Import rules checked by `npm run lint` (dependency-cruiser). The parts and why each rule
 * holds: docs/ARCHITECTURE.md. Paths are relative to the repository root.
 */
const hub = 'hub/src/';
const parts = {
  face: `^(hub/bin/|${hub}(cli|main|hub|app|index|startup|first-token|settings|extensions)\\.ts$)`,
  http: `^${hub}(routes/|http/|observability/observability\\.routes\\.ts$)`,
  broker: `^${hub}broker/`,
  integrations: `^${hub}home-assistant/`,
  cluster: `^${hub}cluster/`,
  areas: `^${hub}(identity|access|spaces|billing|keys|resources|sign-in|reports|notifications|sign-up|presence|problems|import|shadow)/`,
  webhooks: `^${hub}webhooks/`,
  context: `^${hub}(context|secrets|periodic)\\.ts$`,
  observability: `^${hub}observability/metrics\\.ts$`,
  kernel: `^${hub}((errors|rich-text|clock)\\.ts$|throttling/|kernel/)`,
  storage: `^${hub}db/`,
};

/** A forbidden import from one part to another; `severity` 'warn' only while main still breaks it. */
const never = (name, from, to, comment, severity = 'error') => ({
  name,
  severity,
  comment,
  from: { path: parts[from] ?? from },
  to: { path: parts[to] ?? to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Dependencies point one way (http -> areas -> storage); events are subscribed, not imported back.',
      from: {},
      to: { circular: true },
    },
    never(
      'storage-knows-no-rules',
      'storage',
      'areas',
      'Storage (hub/src/db/) knows no rules: areas call it.',
    ),
    never('storage-knows-no-routes', 'storage', 'http', 'Storage knows no routes.'),
    never(
      'storage-knows-no-start-up',
      'storage',
      'face',
      'Storage knows no start-up: its errors are its own.',
    ),
    never('rules-know-no-routes', 'areas', 'http', 'Rules (areas) know no routes: routes call rules.'),
    never(
      'rules-know-no-broker',
      'areas',
      'broker',
      'Areas relay through the BridgeLink port, not the broker module.',
    ),
    never(
      'rules-know-no-webhooks',
      'areas',
      'webhooks',
      'Areas publish events (ctx.events); webhooks subscribe.',
    ),
    never('rules-know-no-observability', 'areas', 'observability', 'Areas count through ctx.metrics.'),
    never('context-holds-ports-not-rules', 'context', 'areas', 'The context holds ports, not domain types.'),
    never(
      'context-holds-ports-not-broker',
      'context',
      'broker',
      'The context holds the relay port, not the broker.',
    ),
    never(
      'context-holds-ports-not-routes',
      'context',
      'http',
      'Ports are declared in context.ts, not taken from http/.',
    ),
    never(
      'context-holds-ports-not-webhooks',
      'context',
      'webhooks',
      'Ports are declared in context.ts, not taken from webhooks/.',
    ),
    never('broker-knows-no-routes', 'broker', 'http', 'The broker knows no routes.'),
    never(
      'broker-knows-no-storage',
      'broker',
      'storage',
      'The broker stores through the resources area, not through db/.',
    ),
    never(
      'integrations-never-import-the-face',
      'integrations',
      'face',
      'An integration is wired by the face (hub.ts), never imports it.',
    ),
    never(
      'integrations-read-through-areas',
      'integrations',
      'storage',
      'Integrations read through areas, not db/.',
    ),
    never('cluster-knows-no-rules', 'cluster', 'areas', 'The cluster moves invalidations, not rules.'),
    never('cluster-knows-no-routes', 'cluster', 'http', 'The cluster knows no routes.'),
    {
      name: 'kernel-imports-nothing-of-the-hub',
      severity: 'error',
      comment: 'Leaf helpers (errors, clock, rich text, throttling) import nothing of the hub.',
      from: { path: parts.kernel },
      to: { path: `^${hub}`, pathNot: parts.kernel },
    },
    {
      name: 'web-imports-shared-only',
      severity: 'error',
      comment:
        'The web app calls /api/v1 and is typed by shared/; it never imports the hub, agent or hardware.',
      from: { path: '^web/' },
      to: { path: '^(hub|agent|hardware)/' },
    },
    {
      name: 'agent-never-imports-the-hub',
      severity: 'error',
      comment: 'The agent talks to the hub over MQTT or HTTP only.',
      from: { path: '^agent/' },
      to: { path: '^hub/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
