#!/usr/bin/env node
// `npm run lint`: the hub's OpenAPI document (built from the compiled hub, on an empty in-memory
// database) must pass Redocly's recommended rules with no error and no warning. The few accepted
// exceptions are in .redocly.lint-ignore.yaml, each with its reason.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { openHub } = await import(join(root, 'hub/dist/hub.js'));
const { createLogger } = await import(join(root, 'shared/dist/index.js'));
const hub = await openHub(
  {
    httpHost: '127.0.0.1',
    httpPort: 0,
    mqttHost: '127.0.0.1',
    mqttPort: 0,
    dataDir: '/nonexistent',
    databaseUrl: ':memory:',
    secretFile: '/nonexistent/secret',
    logLevel: 'silent',
  },
  { secret: randomBytes(32), logger: createLogger({ name: 'lint-openapi', level: 'silent' }) },
);
const res = await hub.app.inject({ url: '/api/v1/openapi.json' });
await hub.close();
const file = 'hub/dist/openapi.json';
mkdirSync(join(root, 'hub/dist'), { recursive: true });
writeFileSync(join(root, file), res.body);

const lint = spawnSync(join(root, 'node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
let report;
try {
  report = JSON.parse(lint.stdout);
} catch {
  process.stderr.write(`redocly lint gave no report:\n${lint.stdout}\n${lint.stderr}\n`);
  process.exit(1);
}
const problems = report.problems ?? [];
for (const p of problems) {
  const where = p.location?.map((l) => l.pointer).join(', ') ?? '';
  process.stderr.write(`${p.severity} ${p.ruleId}: ${p.message} ${where}\n`);
}
const { errors = 0, warnings = 0 } = report.totals ?? {};
if (errors > 0 || warnings > 0 || problems.length > 0) {
  process.stderr.write(
    `OpenAPI document: ${errors} error(s), ${warnings} warning(s) (Redocly recommended rules)\n`,
  );
  process.exit(1);
}
process.stdout.write("OpenAPI document: valid for Redocly's recommended rules, no warning\n");
