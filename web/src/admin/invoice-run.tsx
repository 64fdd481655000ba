import { useEffect, useState } from 'preact/hooks';
import type { InvoiceRunPreview, OpenBalance } from '../api';
import { useSpaceZone, zonedText } from './billing-actions';
import { Alert, errorText } from './form-parts';
import { membersApi } from './members-api';
import { Pager } from './pager';
import { t } from '../i18n/i18n';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The invoice run: a preview first (GET /jobs/invoice-run-preview: how many members, which
 * amounts, each invoice's lines), then the run itself (POST /jobs {type: invoiceRun}), followed
 * until the job is done.
 */
export function InvoiceRun({ onRan }: { onRan: () => void }) {
  const zone = useSpaceZone();
  const [preview, setPreview] = useState<InvoiceRunPreview | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function look() {
    setError(null);
    setStatus(null);
    try {
      setPreview(await membersApi.previewInvoiceRun());
    } catch (e) {
      setError(errorText(e));
    }
  }
  async function run() {
    if (!preview) return;
    setBusy(true);
    setError(null);
    try {
      let job = await membersApi.runInvoices();
      setStatus(t('admin.invoice_run.invoicing'));
      for (let i = 0; i < 120 && (job.state === 'queued' || job.state === 'running'); i++) {
        await sleep(i < 10 ? 300 : 1000);
        job = await membersApi.job(job.id);
        if (job.state === 'running')
          setStatus(t('admin.invoice_run.invoicingProgress', { progress: job.progress }));
      }
      if (job.state === 'succeeded') {
        const made = job.result?.invoices?.length ?? 0;
        const skipped = job.result?.skipped ?? [];
        setStatus(
          `${t('admin.invoice_run.made', { count: made })}${skipped.length ? t('admin.invoice_run.skippedSome', { count: skipped.length, reasons: skipped.map((s) => s.reason).join('; ') }) : ''}`,
        );
        setPreview(null);
        onRan();
      } else if (job.state === 'failed')
        setError(t('admin.invoice_run.failed', { reason: job.error ?? t('admin.invoice_run.noReason') }));
      else setStatus(t('admin.invoice_run.queued'));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  const count = preview?.memberCount ?? 0;
  return (
    <section aria-labelledby="run-h" class="billing-list">
      <div class="section-head">
        <h2 id="run-h">{t('admin.invoice_run.invoiceRun')}</h2>
        <button type="button" class="secondary" onClick={() => void look()} disabled={busy}>
          {t('admin.invoice_run.previewInvoiceRun')}
        </button>
      </div>
      <p class="hint">{t('admin.invoice_run.invoicesEveryMemberS')}</p>
      <Alert text={error} />
      {status && (
        <p role="status" class="notice">
          {status}
        </p>
      )}
      {preview && (
        <div class="run-preview" data-testid="invoice-run-preview">
          <p class="totals">
            {count === 0
              ? t('admin.invoice_run.nothing')
              : t('admin.invoice_run.wouldBeInvoiced', { count, total: preview.total })}
          </p>
          {preview.invoices.map((i) => (
            <details key={i.member}>
              <summary>
                {i.memberName}
                {i.memberNumber ? ` (${i.memberNumber})` : ''}:{' '}
                {t('admin.invoice_run.summary', {
                  total: i.total,
                  currency: i.currency,
                  count: i.charges.length,
                })}
              </summary>
              <ul class="rows">
                {i.charges.map((c) => (
                  <li key={c.id}>
                    {zonedText(c.dateTime, zone)}: {c.description}, {c.price}
                  </li>
                ))}
              </ul>
            </details>
          ))}
          {preview.skipped.map((s) => (
            <p key={s.member} class="hint">
              {t('admin.invoice_run.skipped', { id: s.member, reason: s.reason })}
            </p>
          ))}
          {count > 0 && (
            <div class="actions">
              <button type="button" class="primary" onClick={() => void run()} disabled={busy}>
                {t('admin.invoice_run.run', { count })}
              </button>
              <button type="button" class="secondary" onClick={() => setPreview(null)} disabled={busy}>
                {t('admin.invoice_run.notNow')}
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}

const PAGE = 10;

/** Open balances: the members whose balance is not zero (GET /balances), most owed first. */
export function OpenBalances({ version }: { version: number }) {
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<{ list: OpenBalance[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    membersApi
      .openBalances(offset, PAGE)
      .then(({ body, total }) => setRows({ list: body, total: total ?? body.length }))
      .catch((e) => setError(errorText(e)));
  }, [offset, version]);
  return (
    <section aria-labelledby="balances-h" class="billing-list">
      <h2 id="balances-h">{t('admin.invoice_run.openBalances')}</h2>
      <p class="hint">{t('admin.invoice_run.completedPaymentsMinusEvery')}</p>
      <Alert text={error} />
      <table class="list" aria-label={t('admin.invoice_run.openBalances')}>
        <thead>
          <tr>
            <th scope="col">{t('admin.invoice_run.member')}</th>
            <th scope="col" class="amount">
              {t('admin.invoice_run.balance')}
            </th>
            <th scope="col" class="amount">
              {t('admin.invoice_run.unpaidInvoices')}
            </th>
            <th scope="col" class="amount">
              {t('admin.invoice_run.notInvoiced')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows?.list.length === 0 && (
            <tr>
              <td colSpan={4} class="muted">
                {t('admin.invoice_run.everyMemberSBalance')}
              </td>
            </tr>
          )}
          {rows?.list.map((b) => (
            <tr key={b.member}>
              <td data-label={t('admin.invoice_run.member')}>
                <a href={`/admin/members?member=${b.member}`}>{b.memberName}</a>
                {b.memberNumber ? ` (${b.memberNumber})` : ''}
              </td>
              <td data-label={t('admin.invoice_run.balance')} class="amount">
                {b.balance}
              </td>
              <td data-label={t('admin.invoice_run.unpaidInvoices')} class="amount">
                {b.unpaidInvoices}
              </td>
              <td data-label={t('admin.invoice_run.notInvoiced')} class="amount">
                {b.uninvoicedCharges}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager
        label={t('admin.invoice_run.pagesOfBalances')}
        offset={offset}
        size={PAGE}
        total={rows?.total}
        onOffset={setOffset}
      />
    </section>
  );
}
