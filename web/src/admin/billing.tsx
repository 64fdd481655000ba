import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiError, MemberRecord } from '../api';
import { memberName } from './admin-api';
import {
  type BillingList,
  type BillingRecords,
  type BillingTotals,
  billingApi,
  type ChargeRecord,
  type InvoiceRecord,
  MemberNames,
  type PaymentRecord,
} from './billing-api';
import { ChargeActions, ChargeForm, InvoiceView, useSpaceZone, zonedText } from './billing-actions';
import './billing.css';
import { InvoiceRun, OpenBalances } from './invoice-run';
import { type Cell, download, toCsv } from './csv';
import { Pager } from './pager';
import { SepaBatches } from './sepa-batches';
import { t, tOr } from '../i18n/i18n';

const PAGE = 10;

type Names = Map<number, string>;

/** What differs between the three lists; the section around them is the same. */
interface ListSpec<L extends BillingList> {
  list: L;
  title: () => string;
  /** The list's own state filter: its query parameter, label and choices. */
  state: { param: string; label: () => string; options: () => [string, string][] };
  head: () => string[];
  /** The columns (by index) that hold amounts, aligned right. */
  amounts: number[];
  /** A row's cells; times are the space's wall times (`zone`), as on the invoice's lines. */
  row: (r: BillingRecords[L], names: Names, zone: string) => preact.ComponentChildren[];
  totals: (sums: BillingTotals[L]) => string;
  csvHead: string[];
  csv: (r: BillingRecords[L], names: Names) => Cell[];
  /** The row's buttons (the last column, named by the record). */
  actions?: (r: BillingRecords[L], act: RowActions) => preact.ComponentChildren;
}

/** What a row's buttons do: open a form or an invoice below the list, or reload after a change. */
interface RowActions {
  editCharge: (c: ChargeRecord) => void;
  openInvoice: (id: number) => void;
  changed: () => void;
}

const money = (amount: string) => ({ amount });
const invoiceState = (state: string) => tOr(`admin.billing.invoiceState.${state}`, state);

const charges: ListSpec<'charges'> = {
  list: 'charges',
  title: () => t('admin.billing.charges.title'),
  state: {
    param: 'uninvoiced',
    label: () => t('admin.billing.charges.stateLabel'),
    options: () => [
      ['', t('admin.billing.charges.all')],
      ['false', t('admin.billing.charges.onInvoice')],
      ['true', t('admin.billing.charges.notInvoiced')],
    ],
  },
  head: () => [
    t('admin.billing.date'),
    t('admin.billing.member'),
    t('admin.billing.description'),
    t('admin.billing.price'),
    t('admin.billing.invoice'),
  ],
  amounts: [3],
  row: (c: ChargeRecord, names, zone) => [
    zonedText(c.dateTime, zone),
    names.get(c.member) ?? '',
    c.description,
    c.price,
    c.invoice ?? t('admin.billing.open'),
  ],
  totals: (sums) =>
    t('admin.billing.charges.totals', {
      count: sums.count,
      total: sums.total,
      invoiced: sums.invoiced,
      uninvoiced: sums.uninvoiced,
    }),
  csvHead: ['id', 'dateTime', 'member', 'memberName', 'description', 'price', 'taxPercent', 'invoice'],
  csv: (c, names) => [
    c.id,
    c.dateTime,
    c.member,
    names.get(c.member),
    c.description,
    money(c.price),
    money(c.taxPercent),
    c.invoice,
  ],
  actions: (c, act) => <ChargeActions charge={c} onEdit={act.editCharge} onChanged={act.changed} />,
};

const invoices: ListSpec<'invoices'> = {
  list: 'invoices',
  title: () => t('admin.billing.invoices.title'),
  state: {
    param: 'state',
    label: () => t('admin.billing.state'),
    options: () => [
      ['', t('admin.billing.invoices.all')],
      ['unpaid', t('admin.billing.invoices.option.unpaid')],
      ['paid', t('admin.billing.invoices.option.paid')],
      ['cancelled', t('admin.billing.invoices.option.cancelled')],
    ],
  },
  head: () => [
    t('admin.billing.number'),
    t('admin.billing.date'),
    t('admin.billing.member'),
    t('admin.billing.state'),
    t('admin.billing.total'),
    t('admin.billing.paid'),
  ],
  amounts: [4, 5],
  row: (i: InvoiceRecord, names) => [
    i.number,
    i.date,
    names.get(i.member) ?? '',
    i.collection?.state === 'inCollection'
      ? t('admin.billing.invoices.inBatch', { state: invoiceState(i.state), batch: i.collection.batch })
      : invoiceState(i.state),
    i.total,
    i.paid,
  ],
  totals: (sums) =>
    t('admin.billing.invoices.totals', {
      count: sums.count,
      total: sums.total,
      paid: sums.paid,
      open: sums.open,
    }),
  csvHead: ['id', 'number', 'date', 'dueDate', 'member', 'memberName', 'state', 'currency', 'total', 'paid'],
  csv: (i, names) => [
    i.id,
    i.number,
    i.date,
    i.dueDate,
    i.member,
    names.get(i.member),
    i.state,
    i.currency,
    money(i.total),
    money(i.paid),
  ],
  actions: (i, act) => (
    <button type="button" class="link" onClick={() => act.openInvoice(i.id)}>
      {t('admin.billing.invoices.openInvoice', { number: i.number })}
    </button>
  ),
};

const payments: ListSpec<'payments'> = {
  list: 'payments',
  title: () => t('admin.billing.payments.title'),
  state: {
    param: 'state',
    label: () => t('admin.billing.state'),
    options: () => [
      ['', t('admin.billing.payments.all')],
      ['completed', t('admin.billing.payments.option.completed')],
      ['pending', t('admin.billing.payments.option.pending')],
    ],
  },
  head: () => [
    t('admin.billing.date'),
    t('admin.billing.member'),
    t('admin.billing.state'),
    t('admin.billing.method'),
    t('admin.billing.total'),
    t('admin.billing.invoicesCol'),
  ],
  amounts: [4],
  row: (p: PaymentRecord, names) => [
    p.date,
    names.get(p.member) ?? '',
    tOr(`admin.billing.paymentState.${p.state}`, p.state),
    p.method,
    p.total,
    p.invoices.join(', '),
  ],
  totals: (sums) =>
    t('admin.billing.payments.totals', {
      count: sums.count,
      total: sums.total,
      completed: sums.completed,
      pending: sums.pending,
    }),
  csvHead: ['id', 'date', 'member', 'memberName', 'state', 'method', 'total', 'invoices', 'notes'],
  csv: (p, names) => [
    p.id,
    p.date,
    p.member,
    names.get(p.member),
    p.state,
    p.method,
    money(p.total),
    p.invoices.join(' '),
    p.notes,
  ],
};

/**
 * Billing: charges, invoices and payments, each a paged list with the API's filters (member and
 * dates for all three, each list's state), the totals of everything the filters match
 * (`GET /{list}/totals`) and a CSV export of every matching row.
 */
export function BillingPage() {
  const [memberQ, setMemberQ] = useState('');
  const [found, setFound] = useState<MemberRecord[]>([]);
  const [member, setMember] = useState('');
  const [from, setFrom] = useState('');
  const [until, setUntil] = useState('');
  const names = useMemo(() => new MemberNames(), []);
  useEffect(() => {
    const t = setTimeout(
      () =>
        billingApi
          .members(memberQ.trim())
          .then(setFound)
          .catch(() => setFound([])),
      150,
    );
    return () => clearTimeout(t);
  }, [memberQ]);
  const chosen = found.find((m) => String(m.id) === member);
  // The chosen member's name stays known when a later search no longer finds them.
  const [chosenName, setChosenName] = useState<string | null>(null);
  useEffect(() => {
    if (chosen) setChosenName(memberName(chosen));
  }, [chosen?.id]);
  const common = { member, from, until };
  // Bumped after an invoice run or a change below: every list and total reads again.
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  return (
    <main class="admin billing">
      <h1>{t('admin.billing.billing')}</h1>
      <section aria-labelledby="filters-h" class="filters">
        <h2 id="filters-h">{t('admin.billing.filters')}</h2>
        <div class="actions">
          <label class="filter">
            {t('admin.billing.findMember')}
            <input
              type="search"
              value={memberQ}
              onInput={(e) => setMemberQ((e.target as HTMLInputElement).value)}
            />
          </label>
          <div class="filter">
            {/* A label of its own: wrapped around the select, the options' text would join its name. */}
            <label for="billing-member">{t('admin.billing.member')}</label>
            {/* `selected` per option: the options change with every search, and the choice must stay. */}
            <select id="billing-member" onChange={(e) => setMember((e.target as HTMLSelectElement).value)}>
              <option value="" selected={member === ''}>
                {t('admin.billing.allMembers')}
              </option>
              {member && !chosen && (
                <option value={member} selected>
                  {chosenName ?? t('admin.common.member', { id: member })}
                </option>
              )}
              {found.map((m) => (
                <option key={m.id} value={String(m.id)} selected={String(m.id) === member}>
                  {memberName(m)}
                  {m.memberNumber ? ` (${m.memberNumber})` : ''}
                </option>
              ))}
            </select>
          </div>
          <label class="filter">
            {t('admin.billing.from')}
            <input type="date" value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
          </label>
          <label class="filter">
            {t('admin.billing.until')}
            <input
              type="date"
              value={until}
              onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
            />
          </label>
        </div>
        <p class="hint">{t('admin.billing.chargesCountByTheir')}</p>
      </section>
      <InvoiceRun onRan={changed} />
      <BillingSection spec={charges} common={common} names={names} version={version} onChanged={changed} />
      <BillingSection spec={invoices} common={common} names={names} version={version} onChanged={changed} />
      <BillingSection spec={payments} common={common} names={names} version={version} onChanged={changed} />
      <SepaBatches version={version} onChanged={changed} />
      <OpenBalances version={version} />
    </main>
  );
}

function BillingSection<L extends BillingList>({
  spec,
  common,
  names,
  version,
  onChanged,
}: {
  spec: ListSpec<L>;
  common: { member: string; from: string; until: string };
  names: MemberNames;
  version: number;
  onChanged: () => void;
}) {
  const zone = useSpaceZone();
  const [chargeForm, setChargeForm] = useState<ChargeRecord | 'new' | null>(null);
  const [openInvoice, setOpenInvoice] = useState<number | null>(null);
  const act: RowActions = { editCharge: setChargeForm, openInvoice: setOpenInvoice, changed: onChanged };
  const specHead = spec.head();
  const head = spec.actions ? [...specHead, t('admin.billing.actions')] : specHead;
  const [state, setState] = useState('');
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<{ records: BillingRecords[L][]; total: number; names: Names } | null>(
    null,
  );
  const [totals, setTotals] = useState<BillingTotals[L] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const filters = { ...common, [spec.state.param]: state };
  const key = JSON.stringify(filters);
  useEffect(() => setOffset(0), [key]);
  useEffect(() => {
    let current = true;
    const t = setTimeout(async () => {
      try {
        const [page, sums] = await Promise.all([
          billingApi.page(spec.list, filters, offset, PAGE),
          billingApi.totals(spec.list, filters),
        ]);
        const pageNames = await names.all(page.body.map((r) => r.member));
        if (!current) return;
        setRows({ records: page.body, total: page.total ?? page.body.length, names: pageNames });
        setTotals(sums);
        setError(null);
      } catch (e) {
        if (current) setError((e as ApiError).message);
      }
    }, 150);
    return () => {
      current = false;
      clearTimeout(t);
    };
  }, [key, offset, version]);

  async function exportCsv() {
    setExporting(t(`admin.billing.${spec.list as BillingList}.reading`));
    try {
      const all = await billingApi.all(spec.list, filters);
      const allNames = await names.all(all.map((r) => r.member));
      const range = [common.from, common.until].filter(Boolean).join('_');
      download(
        `${spec.list}${range ? `-${range}` : ''}.csv`,
        toCsv(
          spec.csvHead,
          all.map((r) => spec.csv(r, allNames)),
        ),
      );
      setExporting(t(`admin.billing.${spec.list as BillingList}.exported`, { n: all.length }));
    } catch (e) {
      setExporting(t('admin.billing.exportFailed', { error: (e as ApiError).message }));
    }
  }

  const id = `${spec.list}-h`;
  const title = spec.title();
  return (
    <section aria-labelledby={id} class="billing-list">
      <div class="section-head">
        <h2 id={id}>{title}</h2>
        <label class="head-choice">
          {spec.state.label()}
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
            {spec.state.options().map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => void exportCsv()}>
          {t('admin.billing.exportCsv', { what: title })}
        </button>
        {spec.list === 'charges' && (
          <button type="button" class="primary" onClick={() => setChargeForm('new')}>
            {t('admin.billing.addACharge')}
          </button>
        )}
      </div>
      {chargeForm && (
        <ChargeForm
          key={chargeForm === 'new' ? 'new' : chargeForm.id}
          member={common.member ? Number(common.member) : null}
          charge={chargeForm === 'new' ? null : chargeForm}
          onCancel={() => setChargeForm(null)}
          onDone={() => {
            setChargeForm(null);
            onChanged();
          }}
        />
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {exporting && <p class="hint">{exporting}</p>}
      <p class="totals" data-testid={`${spec.list}-totals`}>
        {totals ? spec.totals(totals) : '…'}
      </p>
      <table class="list" aria-label={title}>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={h} scope="col" class={spec.amounts.includes(i) ? 'amount' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows?.records.length === 0 && (
            <tr>
              <td colSpan={head.length} class="muted">
                {t('admin.billing.noMatch', { what: title })}
              </td>
            </tr>
          )}
          {rows?.records.map((r) => (
            <tr key={r.id}>
              {spec.row(r, rows.names, zone).map((c, i) => (
                <td
                  key={specHead[i]}
                  data-label={specHead[i]}
                  class={spec.amounts.includes(i) ? 'amount' : undefined}
                >
                  {c}
                </td>
              ))}
              {spec.actions && <td>{spec.actions(r, act)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {openInvoice !== null && (
        <InvoiceView
          key={openInvoice}
          id={openInvoice}
          onClose={() => setOpenInvoice(null)}
          onChanged={onChanged}
        />
      )}
      <Pager
        label={t('admin.billing.pagesOf', { what: title })}
        offset={offset}
        size={PAGE}
        total={rows?.total}
        onOffset={setOffset}
      />
    </section>
  );
}
