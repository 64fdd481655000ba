import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ChargeRecord, InvoiceRecord, MemberRecord, PaymentRecord } from '../api';
import { Field } from '../field';
import { memberName } from './admin-api';
import {
  ChargeActions,
  ChargeForm,
  InvoiceView,
  PaymentForm,
  useSpaceZone,
  zonedText,
} from './billing-actions';
import { Choice } from './choice';
import { Alert, errorText, FormActions, useApiCall } from './form-parts';
import { type BalanceItems, type MemberCreditRecord, membersApi } from './members-api';

interface Money {
  balance: BalanceItems;
  charges: { rows: ChargeRecord[]; total: number };
  invoices: { rows: InvoiceRecord[]; total: number };
  payments: { rows: PaymentRecord[]; total: number };
  credits: MemberCreditRecord[];
}

/** "5 of 12" when a list shows only the newest. */
const more = (shown: number, total: number) => (total > shown ? ` (newest ${shown} of ${total})` : '');

function Rows({
  label,
  head,
  empty,
  children,
}: {
  label: string;
  head: string[];
  empty: boolean;
  children: ComponentChildren;
}) {
  return (
    <table class="list" aria-label={label}>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h} scope="col" class={/Price|Total|Amount|Left/.test(h) ? 'amount' : undefined}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {empty && (
          <tr>
            <td colSpan={head.length} class="muted">
              None yet.
            </td>
          </tr>
        )}
        {children}
      </tbody>
    </table>
  );
}

/**
 * A member's money on their page: the balance, their charges (add, edit, delete while not
 * invoiced), invoices (open one: lines, cancel, record a payment), payments (record one) and
 * credits (add one).
 */
export function MemberBilling({ member }: { member: MemberRecord }) {
  const zone = useSpaceZone();
  const [money, setMoney] = useState<Money | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chargeForm, setChargeForm] = useState<ChargeRecord | 'new' | null>(null);
  const [openInvoice, setOpenInvoice] = useState<number | null>(null);
  const [paying, setPaying] = useState(false);
  const [crediting, setCrediting] = useState(false);
  const load = () =>
    Promise.all([
      membersApi.balance(member.id),
      membersApi.charges(member.id),
      membersApi.invoices(member.id),
      membersApi.payments(member.id),
      membersApi.credits(member.id),
    ])
      .then(([balance, charges, invoices, payments, credits]) =>
        setMoney({
          balance,
          charges: { rows: charges.body, total: charges.total ?? charges.body.length },
          invoices: { rows: invoices.body, total: invoices.total ?? invoices.body.length },
          payments: { rows: payments.body, total: payments.total ?? payments.body.length },
          credits,
        }),
      )
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, [member.id]);
  const name = memberName(member);
  if (!money) return <Alert text={error} />;
  const owes = money.balance.balance.startsWith('-');
  return (
    <div class="member-billing">
      <section aria-label={`Balance of ${name}`}>
        <h3>Balance</h3>
        <p class="totals" data-testid="member-balance">
          {`Balance ${money.balance.balance}`}
          {owes ? ' (owes)' : money.balance.balance === '0.00' ? ' (settled)' : ' (in credit)'}
        </p>
        <p class="hint">
          Invoices {money.balance.sumInvoices}, payments {money.balance.sumPayments}, not invoiced yet{' '}
          {money.balance.sumCharges}
          {money.balance.sumUnpaidBookings !== '0.00'
            ? ` and bookings ${money.balance.sumUnpaidBookings}`
            : ''}
          .
        </p>
      </section>

      <section aria-label={`Charges of ${name}`}>
        <div class="section-head">
          <h3>{`Charges${more(money.charges.rows.length, money.charges.total)}`}</h3>
          <button type="button" class="secondary" onClick={() => setChargeForm('new')}>
            {`Add a charge to ${name}`}
          </button>
        </div>
        {chargeForm && (
          <ChargeForm
            key={chargeForm === 'new' ? 'new' : chargeForm.id}
            member={member.id}
            charge={chargeForm === 'new' ? null : chargeForm}
            onCancel={() => setChargeForm(null)}
            onDone={() => {
              setChargeForm(null);
              void load();
            }}
          />
        )}
        <Rows
          label={`Charges of ${name}`}
          head={['Date', 'Description', 'Price', 'Actions']}
          empty={money.charges.rows.length === 0}
        >
          {money.charges.rows.map((c) => (
            <tr key={c.id}>
              <td data-label="Date">{zonedText(c.dateTime, zone)}</td>
              <td data-label="Description">{c.description}</td>
              <td data-label="Price" class="amount">
                {c.price}
              </td>
              <td>
                <ChargeActions charge={c} onEdit={setChargeForm} onChanged={() => void load()} />
              </td>
            </tr>
          ))}
        </Rows>
      </section>

      <section aria-label={`Invoices of ${name}`}>
        <h3>{`Invoices${more(money.invoices.rows.length, money.invoices.total)}`}</h3>
        <Rows
          label={`Invoices of ${name}`}
          head={['Number', 'Date', 'State', 'Total', 'Actions']}
          empty={money.invoices.rows.length === 0}
        >
          {money.invoices.rows.map((i) => (
            <tr key={i.id}>
              <td data-label="Number">{i.number}</td>
              <td data-label="Date">{i.date}</td>
              <td data-label="State">{i.state}</td>
              <td data-label="Total" class="amount">
                {i.total}
              </td>
              <td>
                <button type="button" class="link" onClick={() => setOpenInvoice(i.id)}>
                  {`Open invoice ${i.number}`}
                </button>
              </td>
            </tr>
          ))}
        </Rows>
        {openInvoice !== null && (
          <InvoiceView
            key={openInvoice}
            id={openInvoice}
            onClose={() => setOpenInvoice(null)}
            onChanged={() => void load()}
          />
        )}
      </section>

      <section aria-label={`Payments of ${name}`}>
        <div class="section-head">
          <h3>{`Payments${more(money.payments.rows.length, money.payments.total)}`}</h3>
          <button type="button" class="secondary" onClick={() => setPaying(true)}>
            {`Record a payment from ${name}`}
          </button>
        </div>
        {paying && (
          <PaymentForm
            member={member.id}
            invoice={null}
            onCancel={() => setPaying(false)}
            onDone={() => {
              setPaying(false);
              void load();
            }}
          />
        )}
        <Rows
          label={`Payments of ${name}`}
          head={['Date', 'Method', 'State', 'Amount', 'Invoices']}
          empty={money.payments.rows.length === 0}
        >
          {money.payments.rows.map((p) => (
            <tr key={p.id}>
              <td data-label="Date">{p.date}</td>
              <td data-label="Method">{p.method}</td>
              <td data-label="State">{p.state}</td>
              <td data-label="Amount" class="amount">
                {p.total}
              </td>
              <td data-label="Invoices">
                {p.allocations.map((a) => `#${a.invoice}: ${a.amount}`).join(', ') || 'on no invoice yet'}
              </td>
            </tr>
          ))}
        </Rows>
      </section>

      <section aria-label={`Credits of ${name}`}>
        <div class="section-head">
          <h3>Credits</h3>
          <button type="button" class="secondary" onClick={() => setCrediting(true)}>
            {`Add a credit for ${name}`}
          </button>
        </div>
        {crediting && (
          <CreditForm
            member={member}
            onCancel={() => setCrediting(false)}
            onDone={() => {
              setCrediting(false);
              void load();
            }}
          />
        )}
        <Rows
          label={`Credits of ${name}`}
          head={['From', 'Until', 'For', 'Amount', 'Left']}
          empty={money.credits.length === 0}
        >
          {money.credits.map((c) => (
            <tr key={c.id}>
              <td data-label="From">{c.fromDate}</td>
              <td data-label="Until">{c.untilDate ?? 'open-ended'}</td>
              <td data-label="For">
                {c.scope}
                {c.memberPackage ? ' (from a package)' : ''}
                {c.notes ? `: ${c.notes}` : ''}
              </td>
              <td data-label="Amount" class="amount">
                {c.amount}
              </td>
              <td data-label="Left" class="amount">
                {c.remaining}
              </td>
            </tr>
          ))}
        </Rows>
      </section>
      <Alert text={error} />
    </div>
  );
}

/** A credit given by hand: an amount the member's usage (or bookings) spends first. */
function CreditForm({
  member,
  onDone,
  onCancel,
}: {
  member: MemberRecord;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [amount, setAmount] = useState('');
  const [scope, setScope] = useState('global');
  const [fromDate, setFromDate] = useState('');
  const [untilDate, setUntilDate] = useState('');
  const [notes, setNotes] = useState('');
  const { error, run } = useApiCall();
  async function save(e: Event) {
    e.preventDefault();
    const added = await run(() =>
      membersApi.addCredit(member.id, {
        amount: amount.trim(),
        scope,
        ...(fromDate ? { fromDate } : {}),
        untilDate: untilDate || null,
        notes: notes.trim() || null,
      }),
    );
    if (added) onDone();
  }
  return (
    <form class="action-form" aria-label={`New credit for ${memberName(member)}`} onSubmit={save}>
      <Field label="Credit amount" value={amount} set={setAmount} required inputMode="decimal" />
      <Choice
        label="Spent on"
        value={scope}
        options={[
          ['global', 'Anything'],
          ['usage', 'Machine use'],
          ['booking', 'Bookings'],
        ]}
        onChange={setScope}
      />
      <div class="pair">
        <Field label="From (empty: today)" type="date" value={fromDate} set={setFromDate} />
        <Field label="Until (empty: no end)" type="date" value={untilDate} set={setUntilDate} />
      </div>
      <Field label="Why" value={notes} set={setNotes} maxLength={2000} />
      <Alert text={error} />
      <FormActions submit="Add credit" onCancel={onCancel} />
    </form>
  );
}
