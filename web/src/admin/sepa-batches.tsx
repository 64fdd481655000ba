import { useEffect, useState } from 'preact/hooks';
import { billingApi, type SepaBatchRecord } from './billing-api';
import { Alert, errorText } from './form-parts';
import { Pager } from './pager';
import { t, tOr } from '../i18n/i18n';

const PAGE = 10;

/** The SEPA return reason codes a bank's notice gives, in words (the API takes the code). */
const returnReasons = (): [string, string][] =>
  [
    'AM04',
    'MS02',
    'MD06',
    'AC04',
    'AC01',
    'AC06',
    'MD01',
    'MD07',
    'AM05',
    'MS03',
    'AC13',
    'AG01',
    'AG02',
    'BE05',
    'CNOR',
    'DNOR',
    'FF01',
    'MD02',
    'RC01',
    'RR01',
    'RR02',
    'RR03',
    'RR04',
    'SL01',
  ].map((code) => [code, tOr(`admin.sepa.reason.${code}`, code)]);

const debitStates: Record<string, string> = {
  inCollection: 'in collection',
  collected: 'collected',
  returned: 'returned',
};

/**
 * SEPA direct debit batches (docs/PAYMENTS.md, "SEPA direct debit files"): make a batch of the open invoices for a
 * collection date, download its pain.008 file for the bank, record returned debits and the
 * collection. Every action is a public /api/v1 operation.
 */
export function SepaBatches({ version, onChanged }: { version: number; onChanged: () => void }) {
  const [date, setDate] = useState('');
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<{ list: SepaBatchRecord[]; total: number } | null>(null);
  const [made, setMade] = useState<SepaBatchRecord | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    billingApi
      .sepaBatches(offset, PAGE)
      .then(({ body, total }) => setRows({ list: body, total: total ?? body.length }))
      .catch((e) => setError(errorText(e)));
  }, [offset, version]);

  async function act(work: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await work();
      onChanged();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  const make = () =>
    act(async () => {
      setMade(null);
      const batch = await billingApi.makeSepaBatch(date);
      setMade(batch);
      setOpen(batch.id);
      setOffset(0);
    });

  return (
    <section aria-labelledby="sepa-h" class="billing-list">
      <div class="section-head">
        <h2 id="sepa-h">{t('admin.sepa.sepaBatches')}</h2>
      </div>
      <p class="hint">{t('admin.sepa.directDebitsOfThe')}</p>
      <form
        class="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void make();
        }}
      >
        <label class="filter">
          {t('admin.sepa.collectionDate')}
          <input
            type="date"
            required
            value={date}
            onInput={(e) => setDate((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy || !date}>
          {t('admin.sepa.makeASepaBatch')}
        </button>
      </form>
      <Alert text={error} />
      {made && (
        <div role="status" class="notice" data-testid="sepa-made">
          <p>
            {t('admin.sepa.made', {
              id: made.id,
              count: made.count,
              total: made.total,
              date: made.collectionDate,
            })}
            {made.skipped.length > 0 && ` ${t('admin.sepa.skipped', { count: made.skipped.length })}:`}
          </p>
          {made.skipped.length > 0 && (
            <ul class="rows">
              {made.skipped.map((s) => (
                <li key={s.invoice}>
                  {t('admin.sepa.invoiceMessage', { number: s.invoiceNumber, message: s.message })}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <table class="list" aria-label={t('admin.sepa.sepaBatches')}>
        <thead>
          <tr>
            <th scope="col">{t('admin.sepa.batch')}</th>
            <th scope="col">{t('admin.sepa.collectionDate')}</th>
            <th scope="col">{t('admin.sepa.state')}</th>
            <th scope="col">{t('admin.sepa.debits')}</th>
            <th scope="col" class="amount">
              {t('admin.sepa.total')}
            </th>
            <th scope="col">{t('admin.sepa.returned')}</th>
            <th scope="col">{t('admin.sepa.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {rows?.list.length === 0 && (
            <tr>
              <td colSpan={7} class="muted">
                {t('admin.sepa.noSepaBatchYet')}
              </td>
            </tr>
          )}
          {rows?.list.map((b) => (
            <tr key={b.id}>
              <td data-label={t('admin.sepa.batch')}>{b.id}</td>
              <td data-label={t('admin.sepa.collectionDate')}>{b.collectionDate}</td>
              <td data-label={t('admin.sepa.state')}>
                {b.state === 'collected'
                  ? t('admin.sepa.collectedOn', { date: b.collectedDate })
                  : t('admin.sepa.atTheBank')}
              </td>
              <td data-label={t('admin.sepa.debits')}>{b.count}</td>
              <td data-label={t('admin.sepa.total')} class="amount">
                {b.total}
              </td>
              <td data-label={t('admin.sepa.returned')}>{b.returned}</td>
              <td data-label={t('admin.sepa.actions')} class="row-actions">
                <a
                  href={billingApi.sepaFileUrl(b.id, '001.02')}
                  download
                  aria-label={t('admin.sepa.download', { id: b.id, format: 'pain.008.001.02' })}
                >
                  {t('admin.sepa.pain00800102')}
                </a>{' '}
                <a
                  href={billingApi.sepaFileUrl(b.id, '001.08')}
                  download
                  aria-label={t('admin.sepa.download', { id: b.id, format: 'pain.008.001.08' })}
                >
                  {t('admin.sepa.pain00800108')}
                </a>{' '}
                <button type="button" class="link" onClick={() => setOpen(open === b.id ? null : b.id)}>
                  {open === b.id ? t('admin.sepa.hide', { id: b.id }) : t('admin.sepa.show', { id: b.id })}
                </button>
                {b.state === 'created' && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy}
                    onClick={() => void act(() => billingApi.sepaCollected(b.id))}
                  >
                    {t('admin.sepa.recordCollected', { id: b.id })}
                  </button>
                )}
                {b.state === 'created' && b.returned === 0 && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy}
                    onClick={() => {
                      if (confirm(t('admin.sepa.confirmDiscard', { id: b.id })))
                        void act(async () => {
                          await billingApi.discardSepaBatch(b.id);
                          if (made?.id === b.id) setMade(null);
                        });
                    }}
                  >
                    {t('admin.sepa.discard', { id: b.id })}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager
        label={t('admin.sepa.pagesOfSepaBatches')}
        offset={offset}
        size={PAGE}
        total={rows?.total}
        onOffset={setOffset}
      />
      {rows?.list
        .filter((b) => b.id === open)
        .map((b) => (
          <BatchDebits
            key={b.id}
            batch={b}
            busy={busy}
            onReturn={(invoice, reason) => act(() => billingApi.sepaReturn(b.id, invoice, reason))}
          />
        ))}
    </section>
  );
}

/** A batch's debits, each with the form to record its return. */
function BatchDebits({
  batch,
  busy,
  onReturn,
}: {
  batch: SepaBatchRecord;
  busy: boolean;
  onReturn: (invoice: number, reason: string) => Promise<void>;
}) {
  const [reasons, setReasons] = useState<Record<number, string>>({});
  return (
    <div class="run-preview">
      <table class="list" aria-label={t('admin.sepa.debitsOf', { id: batch.id })}>
        <thead>
          <tr>
            <th scope="col">{t('admin.sepa.invoice')}</th>
            <th scope="col">{t('admin.sepa.debtor')}</th>
            <th scope="col">{t('admin.sepa.sequence')}</th>
            <th scope="col" class="amount">
              {t('admin.sepa.amount')}
            </th>
            <th scope="col">{t('admin.sepa.state')}</th>
            <th scope="col">{t('admin.sepa.return')}</th>
          </tr>
        </thead>
        <tbody>
          {batch.debits.map((d) => (
            <tr key={d.id}>
              <td data-label={t('admin.sepa.invoice')}>{d.invoiceNumber}</td>
              <td data-label={t('admin.sepa.debtor')}>{d.debtorName}</td>
              <td data-label={t('admin.sepa.sequence')}>{d.sequenceType}</td>
              <td data-label={t('admin.sepa.amount')} class="amount">
                {d.amount}
              </td>
              <td data-label={t('admin.sepa.state')}>
                {tOr(`admin.sepa.debitState.${d.state}`, debitStates[d.state] ?? d.state)}
                {d.returnReason ? ` (${d.returnReason})` : ''}
              </td>
              <td data-label={t('admin.sepa.return')}>
                {d.state !== 'returned' && (
                  <span class="actions">
                    <select
                      aria-label={t('admin.sepa.returnReasonFor', { number: d.invoiceNumber })}
                      value={reasons[d.invoice] ?? 'AM04'}
                      onChange={(e) =>
                        setReasons({ ...reasons, [d.invoice]: (e.target as HTMLSelectElement).value })
                      }
                    >
                      {returnReasons().map(([code, words]) => (
                        <option key={code} value={code}>{`${code}: ${words}`}</option>
                      ))}
                    </select>
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy}
                      onClick={() => void onReturn(d.invoice, reasons[d.invoice] ?? 'AM04')}
                    >
                      {t('admin.sepa.recordReturn', { number: d.invoiceNumber })}
                    </button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {batch.skipped.length > 0 && (
        <details>
          <summary>{t('admin.sepa.skipped', { count: batch.skipped.length })}</summary>
          <ul class="rows">
            {batch.skipped.map((s) => (
              <li key={s.invoice}>
                {t('admin.sepa.invoiceMessage', { number: s.invoiceNumber, message: s.message })}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
