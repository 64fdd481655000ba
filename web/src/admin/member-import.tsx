import type { MemberImportResult } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { t } from '../i18n/i18n';
import { fieldLabel, memberFieldGroups } from './member-fields';
import { membersApi } from './members-api';

const fieldLabels = new Map(
  memberFieldGroups.flatMap(([, fields]) => fields.map(([key, label]) => [key, label])),
);
const labelOf = (field: string) => fieldLabel(field, fieldLabels.get(field) ?? field);

/**
 * Members from a spreadsheet: the file is checked first (POST /members/import?dryRun=true) and
 * shown as the hub read it (encoding, separator, how dates are written, each column's field, the
 * first rows, each wrong row with its line); nothing is imported while a row is wrong unless the
 * admin chooses to skip those rows.
 */
export function MemberImport({ onImported, onClose }: { onImported: () => void; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [check, setCheck] = useState<MemberImportResult | null>(null);
  const [skipBadRows, setSkipBadRows] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function choose(chosen: File | null) {
    setFile(chosen);
    setCheck(null);
    setDone(null);
    setError(null);
    setSkipBadRows(false);
    if (!chosen) return;
    setBusy(true);
    try {
      setCheck(await membersApi.importCsv(chosen, { dryRun: true, skipBadRows: false }));
    } catch (e) {
      setError((e as ApiError).message);
    } finally {
      setBusy(false);
    }
  }

  async function runImport() {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const result = await membersApi.importCsv(file, { dryRun: false, skipBadRows });
      setCheck(null);
      setFile(null);
      setDone(
        result.imported
          ? `${t('admin.member_import.imported', { count: result.created })}${
              result.errors.length > 0
                ? t('admin.member_import.skipped', { count: result.errors.length })
                : ''
            }.`
          : t('admin.member_import.nothing'),
      );
      onImported();
    } catch (e) {
      setError((e as ApiError).message);
    } finally {
      setBusy(false);
    }
  }

  const fields = check ? check.columns.filter((c) => c.field !== null).map((c) => c.field as string) : [];
  const wrong = check?.errors.length ?? 0;
  const canImport = check !== null && check.wouldCreate > 0 && (wrong === 0 || skipBadRows) && !busy;

  return (
    <section aria-labelledby="import-h" class="member-import">
      <h2 id="import-h">{t('admin.member_import.title')}</h2>
      <p class="hint">{t('admin.member_import.hint')}</p>
      <label>
        {t('admin.member_import.csvFile')}
        <input
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => void choose((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
      </label>
      {busy && <p aria-live="polite">{t('admin.member_import.reading')}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {done && (
        <p role="status" class="notice">
          {done}
        </p>
      )}
      {check && (
        <>
          <p aria-live="polite">
            {t('admin.member_import.readAs', {
              count: check.rows,
              encoding: check.encoding === 'utf-8' ? 'UTF-8' : 'Windows-1252',
              separator: check.separator,
              date: check.dateExample,
            })}
          </p>
          <table class="list" aria-label={t('admin.member_import.columns')}>
            <thead>
              <tr>
                <th scope="col">{t('admin.member_import.columnInFile')}</th>
                <th scope="col">{t('admin.member_import.memberField')}</th>
              </tr>
            </thead>
            <tbody>
              {check.columns.map((c, i) => (
                <tr key={i}>
                  <td data-label={t('admin.member_import.columnInFile')}>
                    {c.heading || t('admin.member_import.noHeading')}
                  </td>
                  <td data-label={t('admin.member_import.memberField')}>
                    {c.field ? labelOf(c.field) : t('admin.member_import.notImported')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {check.preview.length > 0 && (
            <div class="table-scroll">
              <table class="list" aria-label={t('admin.member_import.firstRows')}>
                <thead>
                  <tr>
                    <th scope="col">{t('admin.member_import.line')}</th>
                    {fields.map((f) => (
                      <th scope="col" key={f}>
                        {labelOf(f)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {check.preview.map((p) => (
                    <tr key={p.line}>
                      <td data-label={t('admin.member_import.line')}>{p.line}</td>
                      {fields.map((f) => (
                        <td key={f} data-label={labelOf(f)}>
                          {String(p.member[f] ?? '')}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {wrong > 0 && (
            <div role="alert" class="error">
              <p>{t('admin.member_import.wrong', { count: wrong })}</p>
              <ul aria-label={t('admin.member_import.wrongRows')}>
                {check.errors.map((e) => (
                  <li key={e.line}>
                    {t('admin.member_import.lineError', { line: e.line, messages: e.messages.join('; ') })}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {check.existing.length > 0 && (
            <p>{t('admin.member_import.existing', { count: check.existing.length })}</p>
          )}
          {wrong > 0 && check.wouldCreate > 0 && (
            <label class="check">
              <input
                type="checkbox"
                checked={skipBadRows}
                onChange={(e) => setSkipBadRows((e.target as HTMLInputElement).checked)}
              />
              {t('admin.member_import.skip')}
            </label>
          )}
        </>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={!canImport} onClick={() => void runImport()}>
          {check
            ? t('admin.member_import.importN', { count: check.wouldCreate })
            : t('admin.member_import.importMembers')}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          {t('admin.member_import.close')}
        </button>
      </div>
    </section>
  );
}
