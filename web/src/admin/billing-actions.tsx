import { useEffect, useState } from 'preact/hooks';
import type { ChargeRecord, InvoiceRecord, MemberRecord } from '../api';
import { Field } from '../field';
import { memberName } from './admin-api';
import { Choice } from './choice';
import { Alert, errorText, FormActions, useApiCall } from './form-parts';
import { billingApi } from './billing-api';
import { type InvoiceDetails, membersApi } from './members-api';
import { spacesApi } from './spaces-api';
import { instant, wall } from './zoned';
import { t, tOr } from '../i18n/i18n';

export { Alert } from './form-parts';

/** The actions on charges, invoices and payments, used by the billing page and a member's page. */

/** A member found by a server-side search (for a form that names a member). */
export function MemberPicker({
  label,
  value,
  onChange,
}: {
  label: string;
  value: number | null;
  onChange: (id: number | null) => void;
}) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<MemberRecord[]>([]);
  useEffect(() => {
    const t = setTimeout(
      () =>
        billingApi
          .members(q.trim())
          .then(setFound)
          .catch(() => setFound([])),
      150,
    );
    return () => clearTimeout(t);
  }, [q]);
  const id = `pick-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div class="picker">
      <Field label={t('admin.billing_actions.search', { what: label })} type="search" value={q} set={setQ} />
      <label for={id}>{label}</label>
      <select
        id={id}
        required
        onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value) || null)}
      >
        <option value="" selected={value === null}>
          {t('admin.billing_actions.choose')}
        </option>
        {found.map((m) => (
          <option key={m.id} value={String(m.id)} selected={m.id === value}>
            {memberName(m)}
            {m.memberNumber ? ` (${m.memberNumber})` : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

let zoneOfSpace: Promise<string> | null = null;
/** The space's time zone (its first space's: charges and payments are dated in it), read once. */
export function useSpaceZone(): string {
  const [zone, setZone] = useState('UTC');
  useEffect(() => {
    zoneOfSpace ??= spacesApi
      .spaces()
      .then((s) => s[0]?.timezone ?? 'UTC')
      .catch(() => 'UTC');
    void zoneOfSpace.then(setZone);
  }, []);
  return zone;
}

/** "2026-03-04 18:00": an instant as the space's wall time. */
export const zonedText = (iso: string, zone: string) => {
  const w = wall(iso, zone);
  return `${w.date} ${w.time}`;
};

/**
 * Adds a charge (to `member`, or to the member picked in the form) or edits one that is on no
 * invoice yet.
 */
export function ChargeForm({
  member,
  charge,
  onDone,
  onCancel,
}: {
  member: number | null;
  charge: ChargeRecord | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [who, setWho] = useState<number | null>(member ?? charge?.member ?? null);
  const [description, setDescription] = useState(charge?.description ?? '');
  const [price, setPrice] = useState(charge?.price ?? '');
  const zone = useSpaceZone();
  const [when, setWhen] = useState(charge ? wall(charge.dateTime, zone).date : '');
  const [whenTime, setWhenTime] = useState(charge ? wall(charge.dateTime, zone).time : '');
  // The charge's wall time once the space's zone is known.
  useEffect(() => {
    if (!charge) return;
    setWhen(wall(charge.dateTime, zone).date);
    setWhenTime(wall(charge.dateTime, zone).time);
  }, [zone]);
  const { error, setError, run } = useApiCall();
  const title = charge
    ? t('admin.billing_actions.editCharge', { name: charge.description })
    : t('admin.billing_actions.newCharge');
  async function save(e: Event) {
    e.preventDefault();
    if (who === null) {
      setError(t('admin.billing_actions.chooseMember'));
      return;
    }
    const body = {
      description: description.trim(),
      price: price.trim(),
      ...(when ? { dateTime: instant(when, whenTime || '12:00', zone).toISOString() } : {}),
    };
    if (await run(() => (charge ? membersApi.updateCharge(charge, body) : membersApi.addCharge(who, body))))
      onDone();
  }
  return (
    <form class="action-form" aria-label={title} onSubmit={save}>
      <h3>{title}</h3>
      {member === null && !charge && (
        <MemberPicker label={t('admin.billing_actions.memberToCharge')} value={who} onChange={setWho} />
      )}
      <Field
        label={t('admin.billing_actions.description')}
        value={description}
        set={setDescription}
        required
        maxLength={500}
      />
      <Field
        label={t('admin.billing_actions.price')}
        value={price}
        set={setPrice}
        required
        inputMode="decimal"
        placeholder="12.50"
      />
      <div class="pair">
        <Field label={t('admin.billing_actions.dayEmptyNow')} type="date" value={when} set={setWhen} />
        <Field label={t('admin.billing_actions.time')} type="time" value={whenTime} set={setWhenTime} />
      </div>
      <Alert text={error} />
      <FormActions
        submit={charge ? t('admin.billing_actions.saveCharge') : t('admin.billing_actions.addCharge')}
        onCancel={onCancel}
      />
    </form>
  );
}

/** Edit and Delete buttons of a charge on no invoice yet (an invoiced one changes by cancelling). */
export function ChargeActions({
  charge,
  onEdit,
  onChanged,
}: {
  charge: ChargeRecord;
  onEdit: (c: ChargeRecord) => void;
  onChanged: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  if (charge.invoice !== null) return <span class="muted">{t('admin.billing_actions.invoiced')}</span>;
  async function remove() {
    if (
      !window.confirm(
        t('admin.billing_actions.confirmDelete', { name: charge.description, price: charge.price }),
      )
    )
      return;
    try {
      await membersApi.deleteCharge(charge.id);
      onChanged();
    } catch (e) {
      setError(errorText(e));
    }
  }
  return (
    <span class="row-actions">
      <button type="button" class="link" onClick={() => onEdit(charge)}>
        {t('admin.billing_actions.editCharge', { name: charge.description })}
      </button>
      <button type="button" class="link danger-link" onClick={() => void remove()}>
        {t('admin.billing_actions.deleteCharge', { name: charge.description })}
      </button>
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </span>
  );
}

/** Records money received: cash or a bank transfer, against an invoice or the member's oldest open ones. */
export function PaymentForm({
  member,
  invoice,
  onDone,
  onCancel,
}: {
  member: number;
  invoice: InvoiceRecord | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [total, setTotal] = useState(invoice?.totalPayable ?? '');
  const [method, setMethod] = useState('cash');
  const zone = useSpaceZone();
  const [date, setDate] = useState('');
  useEffect(() => setDate(wall(new Date(), zone).date), [zone]);
  const [notes, setNotes] = useState('');
  const { error, run } = useApiCall();
  const title = invoice
    ? t('admin.billing_actions.recordPaymentFor', { number: invoice.number })
    : t('admin.billing_actions.recordPayment');
  async function save(e: Event) {
    e.preventDefault();
    const recorded = await run(() =>
      membersApi.recordPayment({
        member,
        total: total.trim(),
        method,
        date,
        ...(invoice ? { invoices: [invoice.id] } : {}),
        notes: notes.trim() || null,
      }),
    );
    if (recorded) onDone();
  }
  return (
    <form class="action-form" aria-label={title} onSubmit={save}>
      <h3>{title}</h3>
      <Field
        label={t('admin.billing_actions.amount')}
        value={total}
        set={setTotal}
        required
        inputMode="decimal"
      />
      <Choice
        label={t('admin.billing_actions.method')}
        value={method}
        options={[
          ['cash', t('admin.billing_actions.methodName.cash')],
          ['transfer', t('admin.billing_actions.methodName.transfer')],
          ['card', t('admin.billing_actions.methodName.card')],
          ['other', t('admin.billing_actions.methodName.other')],
        ]}
        onChange={setMethod}
      />
      <Field
        label={t('admin.billing_actions.dateReceived')}
        type="date"
        value={date}
        set={setDate}
        required
      />
      <Field label={t('admin.billing_actions.notes')} value={notes} set={setNotes} maxLength={2000} />
      {!invoice && <p class="hint">{t('admin.billing_actions.itSettlesTheMember')}</p>}
      <Alert text={error} />
      <FormActions submit={t('admin.billing_actions.savePayment')} onCancel={onCancel} />
    </form>
  );
}

/** One invoice: its lines and tax totals, its payments, and cancel / record a payment. */
export function InvoiceView({
  id,
  onChanged,
  onClose,
}: {
  id: number;
  onChanged: () => void;
  onClose: () => void;
}) {
  const zone = useSpaceZone();
  const [invoice, setInvoice] = useState<InvoiceRecord | null>(null);
  const [details, setDetails] = useState<InvoiceDetails | null>(null);
  const [paying, setPaying] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    Promise.all([membersApi.invoice(id), membersApi.invoiceDetails(id)])
      .then(([i, d]) => {
        setInvoice(i);
        setDetails(d);
      })
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, [id]);
  if (!invoice || !details) return <Alert text={error} />;
  async function cancel() {
    if (!invoice) return;
    if (!window.confirm(t('admin.billing_actions.confirmCancel', { number: invoice.number }))) return;
    try {
      await membersApi.cancelInvoice(invoice);
      await load();
      onChanged();
    } catch (e) {
      setError(errorText(e));
    }
  }
  const label = t('admin.billing_actions.invoiceN', { number: invoice.number });
  return (
    <section class="invoice-view" aria-label={label}>
      <div class="section-head">
        <h3>{label}</h3>
        <button type="button" class="secondary" onClick={onClose}>
          {t('admin.billing_actions.closeInvoice', { number: invoice.number })}
        </button>
      </div>
      <dl class="facts">
        <dt>{t('admin.billing_actions.recipient')}</dt>
        <dd>{[invoice.recipientName, invoice.recipientCompany].filter(Boolean).join(', ') || '—'}</dd>
        <dt>{t('admin.billing_actions.date')}</dt>
        <dd>
          {invoice.date}
          {invoice.dueDate ? t('admin.billing_actions.due', { day: invoice.dueDate }) : ''}
        </dd>
        <dt>{t('admin.billing_actions.state')}</dt>
        <dd data-testid="invoice-state">{tOr(`invoices.state.${invoice.state}`, invoice.state)}</dd>
        <dt>{t('admin.billing_actions.total')}</dt>
        <dd>
          {invoice.total} {invoice.currency}{' '}
          {t('admin.billing_actions.paidOpen', { paid: invoice.paid, open: invoice.totalPayable })}
        </dd>
      </dl>
      <table class="list" aria-label={t('admin.billing_actions.linesOf', { name: label })}>
        <thead>
          <tr>
            <th scope="col">{t('admin.billing_actions.date')}</th>
            <th scope="col">{t('admin.billing_actions.description')}</th>
            <th scope="col" class="amount">
              {t('admin.billing_actions.tax')}
            </th>
            <th scope="col" class="amount">
              {t('admin.billing_actions.price')}
            </th>
          </tr>
        </thead>
        <tbody>
          {details.charges.length === 0 && (
            <tr>
              <td colSpan={4} class="muted">
                {t('admin.billing_actions.noLinesACancelled')}
              </td>
            </tr>
          )}
          {details.charges.map((c) => (
            <tr key={c.id}>
              <td data-label={t('admin.billing_actions.date')}>{zonedText(c.dateTime, zone)}</td>
              <td data-label={t('admin.billing_actions.description')}>{c.description}</td>
              <td data-label={t('admin.billing_actions.tax')} class="amount">
                {c.taxPercent}
              </td>
              <td data-label={t('admin.billing_actions.price')} class="amount">
                {c.price}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">
        {t('admin.billing_actions.withoutTax', { amount: details.totalExcludingTax })}
        {details.taxCategories
          .map((c) => t('admin.billing_actions.taxLine', { percent: c.taxPercent, tax: c.tax }))
          .join('')}
      </p>
      <Alert text={error} />
      {invoice.state !== 'cancelled' && (
        <div class="actions">
          {invoice.state === 'unpaid' && !paying && (
            <button type="button" class="primary" onClick={() => setPaying(true)}>
              {t('admin.billing_actions.recordPaymentFor', { number: invoice.number })}
            </button>
          )}
          <button type="button" class="danger" onClick={() => void cancel()}>
            {t('admin.billing_actions.cancelInvoice', { number: invoice.number })}
          </button>
        </div>
      )}
      {paying && (
        <PaymentForm
          member={invoice.member}
          invoice={invoice}
          onCancel={() => setPaying(false)}
          onDone={() => {
            setPaying(false);
            void load();
            onChanged();
          }}
        />
      )}
    </section>
  );
}
