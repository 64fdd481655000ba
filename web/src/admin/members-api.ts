/** A member's page and the billing actions: public /api/v1 operations, through the app's one `call`. */
import type {
  ChargeRecord,
  InvoiceRecord,
  InvoiceRunPreview,
  MemberImportResult,
  MemberKeyRecord,
  OpenBalance,
  PaymentRecord,
} from '@makerspace/shared';
import { type ApiError, call, callWithTotal } from '../api';
import { query } from './billing-api';

export type Privileges = 'member' | 'admin' | 'owner';

export interface MemberChange {
  id: number;
  date: string;
  state: 'scheduled' | 'applied';
  appliedAt: string | null;
  changes: Record<string, [unknown, unknown]>;
}

export interface BalanceItems {
  balance: string;
  sumInvoices: string;
  sumPayments: string;
  sumCharges: string;
  sumUnpaidBookings: string;
}

export interface MemberCreditRecord {
  id: number;
  scope: string;
  amount: string;
  remaining: string;
  fromDate: string;
  untilDate: string | null;
  notes: string | null;
  memberPackage: number | null;
}

export interface InvoiceDetails {
  id: number;
  totalExcludingTax: string;
  charges: (ChargeRecord & { netPrice: string })[];
  taxCategories: { taxPercent: string; total: string; net: string; tax: string }[];
}

export interface JobRecord {
  id: number;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  progress: number;
  result: { invoices?: number[]; skipped?: { member: number; reason: string }[] } | null;
  error: string | null;
}

export type ChargeInput = { description: string; price: string; dateTime?: string };
export type PaymentInput = {
  member: number;
  total: string;
  method: string;
  date?: string;
  invoices?: number[];
  notes?: string | null;
};

export const membersApi = {
  /** Members from a CSV file: checked only (dryRun) or imported. */
  importCsv: (file: Blob, options: { dryRun: boolean; skipBadRows: boolean }) =>
    call<MemberImportResult>(
      'POST',
      `/members/import?dryRun=${options.dryRun}&skipBadRows=${options.skipBadRows}`,
      // A file without a type (some systems give CSV none) goes as text/csv.
      file.type ? file : new Blob([file], { type: 'text/csv' }),
    ),
  privileges: (id: number) => call<{ privileges: Privileges }>('GET', `/members/${id}/privileges`),
  setPrivileges: (id: number, privileges: Privileges) =>
    call<{ privileges: Privileges }>('PUT', `/members/${id}/privileges`, { privileges }),
  changes: (id: number) => call<MemberChange[]>('GET', `/members/${id}/changes?limit=50`),
  scheduleChange: (id: number, date: string, fields: Record<string, unknown>) =>
    call<MemberChange>('POST', `/members/${id}/changes`, { date, ...fields }),
  removeChange: (id: number, changeId: number) => call<void>('DELETE', `/members/${id}/changes/${changeId}`),
  /** The member's key card, or null when they have none (404 or 204). */
  key: (id: number) =>
    call<MemberKeyRecord | null>('GET', `/members/${id}/key`).catch((e: ApiError) => {
      if (e.status === 404) return null;
      throw e;
    }),
  keyLost: (id: number) => call<MemberKeyRecord>('POST', `/members/${id}/key/lost`),
  removeKey: (id: number) => call<void>('DELETE', `/members/${id}/key`),
  balance: (id: number) => call<BalanceItems>('GET', `/members/${id}/balance-items`),
  credits: (id: number) => call<MemberCreditRecord[]>('GET', `/members/${id}/credits?limit=50`),
  addCredit: (id: number, body: Record<string, unknown>) =>
    call<MemberCreditRecord>('POST', `/members/${id}/credits`, body),
  charges: (member: number) =>
    callWithTotal<ChargeRecord[]>('GET', `/charges${query({ member, limit: 10, order: 'desc' })}`),
  invoices: (member: number) =>
    callWithTotal<InvoiceRecord[]>('GET', `/invoices${query({ member, limit: 10, order: 'desc' })}`),
  payments: (member: number) =>
    callWithTotal<PaymentRecord[]>('GET', `/payments${query({ member, limit: 10, order: 'desc' })}`),

  addCharge: (member: number, body: ChargeInput) =>
    call<ChargeRecord>('POST', '/charges', { member, ...body }),
  updateCharge: (charge: ChargeRecord, body: ChargeInput) =>
    call<ChargeRecord>('PUT', `/charges/${charge.id}`, { ...body, lockVersion: charge.lockVersion }),
  deleteCharge: (id: number) => call<void>('DELETE', `/charges/${id}`),
  invoice: (id: number) => call<InvoiceRecord>('GET', `/invoices/${id}`),
  invoiceDetails: (id: number) => call<InvoiceDetails>('GET', `/invoices/${id}/details`),
  cancelInvoice: (invoice: InvoiceRecord) =>
    call<object>('POST', `/invoices/${invoice.id}/cancel`, { lockVersion: invoice.lockVersion }),
  recordPayment: (body: PaymentInput) => call<PaymentRecord>('POST', '/payments', body),
  previewInvoiceRun: () => call<InvoiceRunPreview>('GET', '/jobs/invoice-run-preview'),
  runInvoices: () => call<JobRecord>('POST', '/jobs', { type: 'invoiceRun' }),
  job: (id: number) => call<JobRecord>('GET', `/jobs/${id}`),
  openBalances: (offset: number, limit: number) =>
    callWithTotal<OpenBalance[]>('GET', `/balances${query({ offset, limit })}`),
};
