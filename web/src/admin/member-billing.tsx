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
import { t } from '../i18n/i18n';

interface Money {
  balance: BalanceItems;
  charges: { rows: ChargeRecord[]; total: number };
  invoices: { rows: InvoiceRecord[]; total: number };
  payments: { rows: PaymentRecord[]; total: number };
  credits: MemberCreditRecord[];
}

/** "5 of 12" when a list shows only the newest. */
const more = (shown: number, total: number) =>
  total > shown ? t('admin.member_billing.newestOf', { shown, total }) : '';

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
              {t('admin.member_billing.noneYet')}
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
      <section aria-label={t('admin.member_billing.balanceOf', { name })}>
        <h3>{t('admin.member_billing.balance')}</h3>
        <p class="totals" data-testid="member-balance">
          {t('admin.member_billing.balanceIs', { balance: money.balance.balance })}
          {owes
            ? t('admin.member_billing.owes')
            : money.balance.balance === '0.00'
              ? t('admin.member_billing.settled')
              : t('admin.member_billing.inCredit')}
        </p>
        <p class="hint">
          {t('admin.member_billing.sums', {
            invoices: money.balance.sumInvoices,
            payments: money.balance.sumPayments,
            charges: money.balance.sumCharges,
          })}
          {money.balance.sumUnpaidBookings !== '0.00'
            ? t('admin.member_billing.andBookings', { amount: money.balance.sumUnpaidBookings })
            : ''}
          .
        </p>
      </section>

      <section aria-label={t('admin.member_billing.chargesOf', { name })}>
        <div class="section-head">
          <h3>{`${t('admin.member_billing.charges')}${more(money.charges.rows.length, money.charges.total)}`}</h3>
          <button type="button" class="secondary" onClick={() => setChargeForm('new')}>
            {t('admin.member_billing.addCharge', { name })}
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
          label={t('admin.member_billing.chargesOf', { name })}
          head={[
            t('admin.member_billing.col.date'),
            t('admin.member_billing.col.description'),
            t('admin.member_billing.col.price'),
            t('admin.member_billing.col.actions'),
          ]}
          empty={money.charges.rows.length === 0}
        >
          {money.charges.rows.map((c) => (
            <tr key={c.id}>
              <td data-label={t('admin.member_billing.col.date')}>{zonedText(c.dateTime, zone)}</td>
              <td data-label={t('admin.member_billing.col.description')}>{c.description}</td>
              <td data-label={t('admin.member_billing.col.price')} class="amount">
                {c.price}
              </td>
              <td>
                <ChargeActions charge={c} onEdit={setChargeForm} onChanged={() => void load()} />
              </td>
            </tr>
          ))}
        </Rows>
      </section>

      <section aria-label={t('admin.member_billing.invoicesOf', { name })}>
        <h3>{`${t('admin.member_billing.invoices')}${more(money.invoices.rows.length, money.invoices.total)}`}</h3>
        <Rows
          label={t('admin.member_billing.invoicesOf', { name })}
          head={[
            t('admin.member_billing.col.number'),
            t('admin.member_billing.col.date'),
            t('admin.member_billing.col.state'),
            t('admin.member_billing.col.total'),
            t('admin.member_billing.col.actions'),
          ]}
          empty={money.invoices.rows.length === 0}
        >
          {money.invoices.rows.map((i) => (
            <tr key={i.id}>
              <td data-label={t('admin.member_billing.col.number')}>{i.number}</td>
              <td data-label={t('admin.member_billing.col.date')}>{i.date}</td>
              <td data-label={t('admin.member_billing.col.state')}>{i.state}</td>
              <td data-label={t('admin.member_billing.col.total')} class="amount">
                {i.total}
              </td>
              <td>
                <button type="button" class="link" onClick={() => setOpenInvoice(i.id)}>
                  {t('admin.member_billing.openInvoice', { number: i.number })}
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

      <section aria-label={t('admin.member_billing.paymentsOf', { name })}>
        <div class="section-head">
          <h3>{`${t('admin.member_billing.payments')}${more(money.payments.rows.length, money.payments.total)}`}</h3>
          <button type="button" class="secondary" onClick={() => setPaying(true)}>
            {t('admin.member_billing.recordPayment', { name })}
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
          label={t('admin.member_billing.paymentsOf', { name })}
          head={[
            t('admin.member_billing.col.date'),
            t('admin.member_billing.col.method'),
            t('admin.member_billing.col.state'),
            t('admin.member_billing.col.amount'),
            t('admin.member_billing.col.invoices'),
          ]}
          empty={money.payments.rows.length === 0}
        >
          {money.payments.rows.map((p) => (
            <tr key={p.id}>
              <td data-label={t('admin.member_billing.col.date')}>{p.date}</td>
              <td data-label={t('admin.member_billing.col.method')}>{p.method}</td>
              <td data-label={t('admin.member_billing.col.state')}>{p.state}</td>
              <td data-label={t('admin.member_billing.col.amount')} class="amount">
                {p.total}
              </td>
              <td data-label={t('admin.member_billing.col.invoices')}>
                {p.allocations.map((a) => `#${a.invoice}: ${a.amount}`).join(', ') ||
                  t('admin.member_billing.onNoInvoice')}
              </td>
            </tr>
          ))}
        </Rows>
      </section>

      <section aria-label={t('admin.member_billing.creditsOf', { name })}>
        <div class="section-head">
          <h3>{t('admin.member_billing.credits')}</h3>
          <button type="button" class="secondary" onClick={() => setCrediting(true)}>
            {t('admin.member_billing.addCredit', { name })}
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
          label={t('admin.member_billing.creditsOf', { name })}
          head={[
            t('admin.member_billing.col.from'),
            t('admin.member_billing.col.until'),
            t('admin.member_billing.col.for'),
            t('admin.member_billing.col.amount'),
            t('admin.member_billing.col.left'),
          ]}
          empty={money.credits.length === 0}
        >
          {money.credits.map((c) => (
            <tr key={c.id}>
              <td data-label={t('admin.member_billing.col.from')}>{c.fromDate}</td>
              <td data-label={t('admin.member_billing.col.until')}>
                {c.untilDate ?? t('admin.member_billing.openEnded')}
              </td>
              <td data-label={t('admin.member_billing.col.for')}>
                {c.scope}
                {c.memberPackage ? t('admin.member_billing.fromPackage') : ''}
                {c.notes ? `: ${c.notes}` : ''}
              </td>
              <td data-label={t('admin.member_billing.col.amount')} class="amount">
                {c.amount}
              </td>
              <td data-label={t('admin.member_billing.col.left')} class="amount">
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
    <form
      class="action-form"
      aria-label={t('admin.member_billing.newCredit', { name: memberName(member) })}
      onSubmit={save}
    >
      <Field
        label={t('admin.member_billing.creditAmount')}
        value={amount}
        set={setAmount}
        required
        inputMode="decimal"
      />
      <Choice
        label={t('admin.member_billing.spentOn')}
        value={scope}
        options={[
          ['global', t('admin.member_billing.scope.global')],
          ['usage', t('admin.member_billing.scope.usage')],
          ['booking', t('admin.member_billing.scope.booking')],
        ]}
        onChange={setScope}
      />
      <div class="pair">
        <Field
          label={t('admin.member_billing.fromEmptyToday')}
          type="date"
          value={fromDate}
          set={setFromDate}
        />
        <Field
          label={t('admin.member_billing.untilEmptyNoEnd')}
          type="date"
          value={untilDate}
          set={setUntilDate}
        />
      </div>
      <Field label={t('admin.member_billing.why')} value={notes} set={setNotes} maxLength={2000} />
      <Alert text={error} />
      <FormActions submit={t('admin.member_billing.addCreditButton')} onCancel={onCancel} />
    </form>
  );
}
