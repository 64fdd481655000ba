/** The billing and webhook pages' calls: public /api/v1 operations, through the app's one `call`. */
import type {
  ChargeRecord,
  ChargeTotals,
  InvoiceRecord,
  InvoiceTotals,
  MemberRecord,
  PaymentRecord,
  PaymentTotals,
  SepaBatchRecord,
  WebhookEventRecord,
  WebhookRecord,
} from '@makerspace/shared';
import { call, callWithTotal } from '../api';

export type {
  ChargeRecord,
  ChargeTotals,
  InvoiceRecord,
  InvoiceTotals,
  PaymentRecord,
  PaymentTotals,
  SepaBatchRecord,
  WebhookEventRecord,
  WebhookRecord,
};

export type BillingList = 'charges' | 'invoices' | 'payments';
export interface BillingRecords {
  charges: ChargeRecord;
  invoices: InvoiceRecord;
  payments: PaymentRecord;
}
export interface BillingTotals {
  charges: ChargeTotals;
  invoices: InvoiceTotals;
  payments: PaymentTotals;
}

/** A list's filters as query parameters (empty values left out). */
export function query(params: Record<string, string | number | undefined>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
}

/** The largest page the API gives (limit 1000): an export reads the list in pages of this. */
const EXPORT_PAGE = 1000;

export const billingApi = {
  page: <L extends BillingList>(list: L, filters: Record<string, string>, offset: number, limit: number) =>
    callWithTotal<BillingRecords[L][]>(
      'GET',
      `/${list}${query({ ...filters, order: 'desc', limit, offset })}`,
    ),
  totals: <L extends BillingList>(list: L, filters: Record<string, string>) =>
    call<BillingTotals[L]>('GET', `/${list}/totals${query(filters)}`),
  /** Every record the filters match, page by page (for the CSV export). */
  async all<L extends BillingList>(list: L, filters: Record<string, string>): Promise<BillingRecords[L][]> {
    const rows: BillingRecords[L][] = [];
    for (;;) {
      const { body, total } = await billingApi.page(list, filters, rows.length, EXPORT_PAGE);
      rows.push(...body);
      if (body.length === 0 || rows.length >= (total ?? 0)) return rows;
    }
  },
  member: (id: number) => call<MemberRecord>('GET', `/members/${id}`),
  members: (q: string) =>
    call<MemberRecord[]>('GET', `/members${query({ q, limit: 20, orderBy: 'lastName' })}`),

  sepaBatches: (offset: number, limit: number) =>
    callWithTotal<SepaBatchRecord[]>('GET', `/sepa-batches${query({ limit, offset })}`),
  makeSepaBatch: (collectionDate: string) =>
    call<SepaBatchRecord>('POST', '/sepa-batches', { collectionDate }),
  sepaReturn: (batch: number, invoice: number, reason: string) =>
    call<SepaBatchRecord>('POST', `/sepa-batches/${batch}/returns`, { invoice, reason }),
  sepaCollected: (batch: number) => call<SepaBatchRecord>('POST', `/sepa-batches/${batch}/collected`, {}),
  discardSepaBatch: (batch: number) => call<void>('DELETE', `/sepa-batches/${batch}`),
  /** The batch's pain.008 file (a plain GET: the browser downloads it with the session cookie). */
  sepaFileUrl: (batch: number, version: '001.02' | '001.08') =>
    `/api/v1/sepa-batches/${batch}/xml?version=${version}`,

  webhooks: () => call<WebhookRecord[]>('GET', '/webhooks?limit=200'),
  createWebhook: (body: { url: string; label?: string; categories: string[] }) =>
    call<WebhookRecord & { secret: string }>('POST', '/webhooks', body),
  updateWebhook: (hook: WebhookRecord, body: { url: string; label: string | null; categories: string[] }) =>
    call<WebhookRecord>('PUT', `/webhooks/${hook.id}`, { ...body, lockVersion: hook.lockVersion }),
  setWebhookState: (hook: WebhookRecord, state: 'active' | 'paused') =>
    call<WebhookRecord>('PUT', `/webhooks/${hook.id}`, { state, lockVersion: hook.lockVersion }),
  deleteWebhook: (id: number) => call<void>('DELETE', `/webhooks/${id}`),
  deliveries: (id: number, state: string, offset: number, limit: number) =>
    callWithTotal<WebhookEventRecord[]>('GET', `/webhooks/${id}/events${query({ state, limit, offset })}`),
  sendTest: (id: number) => call<WebhookEventRecord>('POST', `/webhooks/${id}/test`, {}),
  retry: (id: number, deliveryId: number) =>
    call<WebhookEventRecord>('POST', `/webhooks/${id}/deliveries/${deliveryId}/retry`),
};

/** Member names by id, each asked for once per page view (lists carry only the member's id). */
export class MemberNames {
  private readonly names = new Map<number, Promise<string>>();
  name(id: number): Promise<string> {
    let found = this.names.get(id);
    if (!found) {
      found = billingApi
        .member(id)
        .then((m) => `${m.firstName} ${m.lastName ?? ''}`.trim())
        .catch(() => `Member ${id}`);
      this.names.set(id, found);
    }
    return found;
  }
  /** Names of all these ids, at most four requests at a time. */
  async all(ids: number[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids)];
    const out = new Map<number, string>();
    for (let i = 0; i < unique.length; i += 4) {
      const batch = unique.slice(i, i + 4);
      const names = await Promise.all(batch.map((id) => this.name(id)));
      for (const [j, id] of batch.entries()) out.set(id, names[j]);
    }
    return out;
  }
}
