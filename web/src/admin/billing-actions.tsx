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
      <Field label={`Search ${label.toLowerCase()}`} type="search" value={q} set={setQ} />
      <label for={id}>{label}</label>
      <select
        id={id}
        required
        onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value) || null)}
      >
        <option value="" selected={value === null}>
          Choose…
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
  const title = charge ? `Edit charge ${charge.description}` : 'New charge';
  async function save(e: Event) {
    e.preventDefault();
    if (who === null) {
      setError('Member: choose whom to charge');
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
      {member === null && !charge && <MemberPicker label="Member to charge" value={who} onChange={setWho} />}
      <Field label="Description" value={description} set={setDescription} required maxLength={500} />
      <Field label="Price" value={price} set={setPrice} required inputMode="decimal" placeholder="12.50" />
      <div class="pair">
        <Field label="Day (empty: now)" type="date" value={when} set={setWhen} />
        <Field label="Time" type="time" value={whenTime} set={setWhenTime} />
      </div>
      <Alert text={error} />
      <FormActions submit={charge ? 'Save charge' : 'Add charge'} onCancel={onCancel} />
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
  if (charge.invoice !== null) return <span class="muted">invoiced</span>;
  async function remove() {
    if (!window.confirm(`Delete the charge "${charge.description}" (${charge.price})?`)) return;
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
        {`Edit charge ${charge.description}`}
      </button>
      <button type="button" class="link danger-link" onClick={() => void remove()}>
        {`Delete charge ${charge.description}`}
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
  const title = invoice ? `Record a payment for ${invoice.number}` : 'Record a payment';
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
      <Field label="Amount" value={total} set={setTotal} required inputMode="decimal" />
      <Choice
        label="Method"
        value={method}
        options={[
          ['cash', 'Cash'],
          ['transfer', 'Bank transfer'],
          ['card', 'Card'],
          ['other', 'Other'],
        ]}
        onChange={setMethod}
      />
      <Field label="Date received" type="date" value={date} set={setDate} required />
      <Field label="Notes" value={notes} set={setNotes} maxLength={2000} />
      {!invoice && <p class="hint">It settles the member's oldest open invoices first.</p>}
      <Alert text={error} />
      <FormActions submit="Save payment" onCancel={onCancel} />
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
    if (!window.confirm(`Cancel invoice ${invoice.number}? Its charges go on the next invoice.`)) return;
    try {
      await membersApi.cancelInvoice(invoice);
      await load();
      onChanged();
    } catch (e) {
      setError(errorText(e));
    }
  }
  const label = `Invoice ${invoice.number}`;
  return (
    <section class="invoice-view" aria-label={label}>
      <div class="section-head">
        <h3>{label}</h3>
        <button type="button" class="secondary" onClick={onClose}>
          {`Close invoice ${invoice.number}`}
        </button>
      </div>
      <dl class="facts">
        <dt>Recipient</dt>
        <dd>{[invoice.recipientName, invoice.recipientCompany].filter(Boolean).join(', ') || '—'}</dd>
        <dt>Date</dt>
        <dd>
          {invoice.date}
          {invoice.dueDate ? `, due ${invoice.dueDate}` : ''}
        </dd>
        <dt>State</dt>
        <dd data-testid="invoice-state">{invoice.state}</dd>
        <dt>Total</dt>
        <dd>
          {invoice.total} {invoice.currency} (paid {invoice.paid}, open {invoice.totalPayable})
        </dd>
      </dl>
      <table class="list" aria-label={`Lines of ${label}`}>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Description</th>
            <th scope="col" class="amount">
              Tax %
            </th>
            <th scope="col" class="amount">
              Price
            </th>
          </tr>
        </thead>
        <tbody>
          {details.charges.length === 0 && (
            <tr>
              <td colSpan={4} class="muted">
                No lines: a cancelled invoice gives its charges back.
              </td>
            </tr>
          )}
          {details.charges.map((c) => (
            <tr key={c.id}>
              <td data-label="Date">{zonedText(c.dateTime, zone)}</td>
              <td data-label="Description">{c.description}</td>
              <td data-label="Tax %" class="amount">
                {c.taxPercent}
              </td>
              <td data-label="Price" class="amount">
                {c.price}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">
        Without tax {details.totalExcludingTax}
        {details.taxCategories.map((t) => `; tax ${t.taxPercent} %: ${t.tax}`).join('')}
      </p>
      <Alert text={error} />
      {invoice.state !== 'cancelled' && (
        <div class="actions">
          {invoice.state === 'unpaid' && !paying && (
            <button type="button" class="primary" onClick={() => setPaying(true)}>
              {`Record a payment for ${invoice.number}`}
            </button>
          )}
          <button type="button" class="danger" onClick={() => void cancel()}>
            {`Cancel invoice ${invoice.number}`}
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
