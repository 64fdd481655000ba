import { useEffect, useState } from 'preact/hooks';
import { billingApi, type SepaBatchRecord } from './billing-api';
import { Alert, errorText } from './form-parts';
import { Pager } from './pager';

const PAGE = 10;

/** The SEPA return reason codes a bank's notice gives, in words (the API takes the code). */
const returnReasons: [string, string][] = [
  ['AM04', 'Insufficient funds'],
  ['MS02', 'Refused by the debtor'],
  ['MD06', 'Refund requested by the debtor'],
  ['AC04', 'Account closed'],
  ['AC01', 'Account number wrong'],
  ['AC06', 'Account blocked'],
  ['MD01', 'No mandate'],
  ['MD07', 'Debtor deceased'],
  ['AM05', 'Duplicate collection'],
  ['MS03', 'No reason given'],
  ['AC13', 'Account type not for direct debits'],
  ['AG01', 'Direct debits not allowed on this account'],
  ['AG02', 'Invalid operation code'],
  ['BE05', 'Creditor not known'],
  ['CNOR', 'Creditor bank not reachable'],
  ['DNOR', 'Debtor bank not reachable'],
  ['FF01', 'File format invalid'],
  ['MD02', 'Mandate data missing or wrong'],
  ['RC01', 'Bank identifier wrong'],
  ['RR01', 'Regulatory reason (debtor account)'],
  ['RR02', 'Regulatory reason (debtor name or address)'],
  ['RR03', 'Regulatory reason (creditor name or address)'],
  ['RR04', 'Regulatory reason'],
  ['SL01', 'Service of the debtor bank'],
];

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
        <h2 id="sepa-h">SEPA batches</h2>
      </div>
      <p class="hint">
        Direct debits of the open invoices of members with a signed SEPA mandate, as a file for the space's
        bank. Set the creditor id, IBAN and account owner in the space's billing settings first.
      </p>
      <form
        class="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void make();
        }}
      >
        <label class="filter">
          Collection date
          <input
            type="date"
            required
            value={date}
            onInput={(e) => setDate((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy || !date}>
          Make a SEPA batch
        </button>
      </form>
      <Alert text={error} />
      {made && (
        <div role="status" class="notice" data-testid="sepa-made">
          <p>
            {`Batch ${made.id}: ${made.count} ${made.count === 1 ? 'debit' : 'debits'}, ${made.total} EUR, collected on ${made.collectionDate}.`}
            {made.skipped.length > 0 &&
              ` ${made.skipped.length} ${made.skipped.length === 1 ? 'invoice' : 'invoices'} skipped:`}
          </p>
          {made.skipped.length > 0 && (
            <ul class="rows">
              {made.skipped.map((s) => (
                <li key={s.invoice}>{`Invoice ${s.invoiceNumber}: ${s.message}`}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <table class="list" aria-label="SEPA batches">
        <thead>
          <tr>
            <th scope="col">Batch</th>
            <th scope="col">Collection date</th>
            <th scope="col">State</th>
            <th scope="col">Debits</th>
            <th scope="col" class="amount">
              Total
            </th>
            <th scope="col">Returned</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows?.list.length === 0 && (
            <tr>
              <td colSpan={7} class="muted">
                No SEPA batch yet.
              </td>
            </tr>
          )}
          {rows?.list.map((b) => (
            <tr key={b.id}>
              <td data-label="Batch">{b.id}</td>
              <td data-label="Collection date">{b.collectionDate}</td>
              <td data-label="State">
                {b.state === 'collected' ? `collected ${b.collectedDate}` : 'at the bank'}
              </td>
              <td data-label="Debits">{b.count}</td>
              <td data-label="Total" class="amount">
                {b.total}
              </td>
              <td data-label="Returned">{b.returned}</td>
              <td data-label="Actions" class="row-actions">
                <a
                  href={billingApi.sepaFileUrl(b.id, '001.02')}
                  download
                  aria-label={`Download batch ${b.id} as pain.008.001.02`}
                >
                  pain.008.001.02
                </a>{' '}
                <a
                  href={billingApi.sepaFileUrl(b.id, '001.08')}
                  download
                  aria-label={`Download batch ${b.id} as pain.008.001.08`}
                >
                  pain.008.001.08
                </a>{' '}
                <button type="button" class="link" onClick={() => setOpen(open === b.id ? null : b.id)}>
                  {open === b.id ? `Hide batch ${b.id}` : `Show batch ${b.id}`}
                </button>
                {b.state === 'created' && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy}
                    onClick={() => void act(() => billingApi.sepaCollected(b.id))}
                  >
                    {`Record batch ${b.id} as collected`}
                  </button>
                )}
                {b.state === 'created' && b.returned === 0 && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={busy}
                    onClick={() => {
                      if (confirm(`Discard batch ${b.id}? Only if its file did not go to the bank.`))
                        void act(async () => {
                          await billingApi.discardSepaBatch(b.id);
                          if (made?.id === b.id) setMade(null);
                        });
                    }}
                  >
                    {`Discard batch ${b.id}`}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager
        label="Pages of SEPA batches"
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
      <table class="list" aria-label={`Debits of batch ${batch.id}`}>
        <thead>
          <tr>
            <th scope="col">Invoice</th>
            <th scope="col">Debtor</th>
            <th scope="col">Sequence</th>
            <th scope="col" class="amount">
              Amount
            </th>
            <th scope="col">State</th>
            <th scope="col">Return</th>
          </tr>
        </thead>
        <tbody>
          {batch.debits.map((d) => (
            <tr key={d.id}>
              <td data-label="Invoice">{d.invoiceNumber}</td>
              <td data-label="Debtor">{d.debtorName}</td>
              <td data-label="Sequence">{d.sequenceType}</td>
              <td data-label="Amount" class="amount">
                {d.amount}
              </td>
              <td data-label="State">
                {debitStates[d.state] ?? d.state}
                {d.returnReason ? ` (${d.returnReason})` : ''}
              </td>
              <td data-label="Return">
                {d.state !== 'returned' && (
                  <span class="actions">
                    <select
                      aria-label={`Return reason for invoice ${d.invoiceNumber}`}
                      value={reasons[d.invoice] ?? 'AM04'}
                      onChange={(e) =>
                        setReasons({ ...reasons, [d.invoice]: (e.target as HTMLSelectElement).value })
                      }
                    >
                      {returnReasons.map(([code, words]) => (
                        <option key={code} value={code}>{`${code}: ${words}`}</option>
                      ))}
                    </select>
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy}
                      onClick={() => void onReturn(d.invoice, reasons[d.invoice] ?? 'AM04')}
                    >
                      {`Record return of invoice ${d.invoiceNumber}`}
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
          <summary>{`${batch.skipped.length} ${batch.skipped.length === 1 ? 'invoice' : 'invoices'} skipped`}</summary>
          <ul class="rows">
            {batch.skipped.map((s) => (
              <li key={s.invoice}>{`Invoice ${s.invoiceNumber}: ${s.message}`}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
