/**
 * Each operation's `operationId`, which client generators name their methods by: camelCase,
 * unique, and stable, since it is derived from the method and the path (`GET /members` is
 * `listMembers`, `GET /members/{memberId}/credits/{creditId}` is `getMemberCredit`, `POST
 * /resources/{resourceId}/switch-on` is `switchOnResource`). Where the derived name reads badly
 * or two spellings of one operation would share it, `namedOperations` names it; a route that
 * names its own `operationId` keeps it.
 */

const namedOperations: Readonly<Record<string, string>> = {
  'GET /metrics': 'getMetrics',
  'GET /user/me': 'getCurrentUser',
  'GET /live': 'streamLiveChanges',
  'GET /members/:memberId/privileges': 'getMemberPrivileges',
  'POST /members/:memberId/key': 'createMemberKey',
  'POST /members/:memberId/key/lost': 'reportMemberKeyLost',
  'POST /members/:memberId/invitation': 'inviteMember',
  'POST /members/:memberId/sign-in-link': 'createMemberSignInLink',
  'POST /members/:memberId/packages/preview': 'previewMemberPackage',
  'POST /webhooks/:webhookId/events': 'sendWebhookTestEvent',
  'POST /webhooks/:webhookId/test': 'testWebhook',
  // The commercial interface's singular spelling of the same operations.
  'PUT /space/:spaceId/holidays/:holidayId': 'updateSpaceHolidayBySingularPath',
  'DELETE /space/:spaceId/holidays/:holidayId': 'deleteSpaceHolidayBySingularPath',
  'DELETE /space/:spaceId/billing-settings/stripe': 'deleteSpaceStripeSettingsBySingularPath',
  'DELETE /spaces/:spaceId/billing-settings/stripe': 'deleteSpaceStripeSettings',
  'GET /spaces/:spaceId/billing-settings': 'getSpaceBillingSettings',
  'GET /space-billing-settings/:billingSettingsId': 'getSpaceBillingSettingsById',
  'PUT /space-billing-settings/:billingSettingsId': 'updateSpaceBillingSettingsById',
  'GET /spaces/:spaceId/opening-hours': 'getSpaceOpeningHours',
  'GET /calendar/:file': 'getSpaceCalendar',
  'GET /member-trainings': 'listAccountMemberTrainings',
  'GET /member-trainings/:trainingId': 'getAccountMemberTraining',
  'GET /invoices/:invoiceId/details': 'getInvoiceDetails',
  'POST /payments/:paymentId/request-payment': 'requestPayment',
  'GET /jobs/invoice-run-preview': 'previewInvoiceRun',
  'POST /bridge/heartbeat': 'bridgeHeartbeat',
  'POST /bridge/access': 'bridgeAccess',
  'POST /bridge/update': 'bridgeUpdateSession',
  'POST /bridge/stop': 'bridgeStopSession',
  'POST /user/sign-in-links': 'requestSignInLink',
  'POST /user/sign-in-links/redeem': 'redeemSignInLink',
  'GET /user/sessions/current': 'getCurrentSession',
  'POST /bridge-pairings/redeem': 'redeemBridgePairing',
  'GET /charges/totals': 'getChargeTotals',
  'GET /invoices/totals': 'getInvoiceTotals',
  'GET /payments/totals': 'getPaymentTotals',
  'GET /reports/usage': 'getUsageReport',
  'GET /reports/refusals': 'getRefusalsReport',
  'GET /reports/members': 'getMembersReport',
  'GET /reports/revenue': 'getRevenueReport',
};

const pascal = (s: string) =>
  s
    .split(/[-_.]/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
const isPlural = (w: string) => w.endsWith('s') && !w.endsWith('ss');
const singular = (w: string) => (w.endsWith('ies') ? `${w.slice(0, -3)}y` : isPlural(w) ? w.slice(0, -1) : w);
const isParam = (s: string) => s.startsWith(':');

/** The derived name of `METHOD /local/path` (path parameters as `:name`). */
export function derivedOperationId(key: string): string {
  const named = namedOperations[key];
  if (named) return named;
  const [method, path] = key.split(' ');
  const segments = path.split('/').filter(Boolean);
  const statics = segments
    .map((s, i) => ({ s, one: i + 1 < segments.length && isParam(segments[i + 1]) }))
    .filter(({ s }) => !isParam(s));
  // A segment followed by an id names one record of it: `members/:memberId` is Member.
  const words = (list: typeof statics) => list.map(({ s, one }) => pascal(one ? singular(s) : s)).join('');
  const last = segments.at(-1) ?? '';
  const m = method.toLowerCase();
  if (isParam(last)) {
    const verb = { get: 'get', put: 'update', patch: 'update', delete: 'delete', post: 'create' }[m] ?? m;
    return verb + words(statics);
  }
  const lastWord = last.split('-').at(-1) ?? '';
  if (m === 'get') return (isPlural(lastWord) ? 'list' : 'get') + words(statics);
  if (m === 'put' || m === 'patch') return `update${words(statics)}`;
  if (m === 'delete') return `delete${words(statics)}`;
  if (m === 'post' && isPlural(lastWord))
    return `create${words(statics.slice(0, -1))}${pascal(singular(last))}`;
  // An action on what precedes it: `POST /invoices/:invoiceId/cancel` is cancelInvoice.
  const [verb, ...rest] = last.split('-');
  return verb + rest.map(pascal).join('') + words(statics.slice(0, -1));
}

/** Gives each operation without one its derived `operationId`, unique in the document. */
export function assignOperationIds(operations: { key: string; op: Record<string, any> }[]): void {
  const taken = new Set(operations.map(({ op }) => op.operationId).filter(Boolean));
  for (const { key, op } of operations) {
    if (op.operationId) continue;
    const base = derivedOperationId(key);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
    taken.add(id);
    op.operationId = id;
  }
}
