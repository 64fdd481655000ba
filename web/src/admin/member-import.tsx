import type { MemberImportResult } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { memberFieldGroups } from './member-fields';
import { membersApi } from './members-api';

const fieldLabels = new Map(
  memberFieldGroups.flatMap(([, fields]) => fields.map(([key, label]) => [key, label])),
);
const labelOf = (field: string) => fieldLabels.get(field) ?? field;

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
          ? `Imported ${result.created} ${result.created === 1 ? 'member' : 'members'}${result.errors.length > 0 ? `; ${result.errors.length} wrong ${result.errors.length === 1 ? 'row' : 'rows'} skipped` : ''}.`
          : 'Nothing was imported.',
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
      <h2 id="import-h">Import members from a spreadsheet</h2>
      <p class="hint">
        A CSV file with a heading line (First name, Last name, E-mail, Member number, Date of birth, Address,
        …; German headings such as Vorname or Geburtsdatum work too), saved as UTF-8 or Windows-1252,
        separated by commas or semicolons. Members whose e-mail address is already here are left as they are.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => void choose((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
      </label>
      {busy && <p aria-live="polite">Reading the file…</p>}
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
            {`${check.rows} ${check.rows === 1 ? 'row' : 'rows'}, read as ${check.encoding === 'utf-8' ? 'UTF-8' : 'Windows-1252'}, separated by "${check.separator}", dates written as ${check.dateExample}.`}
          </p>
          <table class="list" aria-label="Columns">
            <thead>
              <tr>
                <th scope="col">Column in the file</th>
                <th scope="col">Member field</th>
              </tr>
            </thead>
            <tbody>
              {check.columns.map((c, i) => (
                <tr key={i}>
                  <td data-label="Column in the file">{c.heading || '(no heading)'}</td>
                  <td data-label="Member field">{c.field ? labelOf(c.field) : 'not imported'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {check.preview.length > 0 && (
            <div class="table-scroll">
              <table class="list" aria-label="First rows">
                <thead>
                  <tr>
                    <th scope="col">Line</th>
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
                      <td data-label="Line">{p.line}</td>
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
              <p>{`${wrong} ${wrong === 1 ? 'row is' : 'rows are'} wrong: correct the file and choose it again, or skip ${wrong === 1 ? 'it' : 'them'}.`}</p>
              <ul aria-label="Wrong rows">
                {check.errors.map((e) => (
                  <li key={e.line}>{`Line ${e.line}: ${e.messages.join('; ')}`}</li>
                ))}
              </ul>
            </div>
          )}
          {check.existing.length > 0 && (
            <p>{`${check.existing.length} ${check.existing.length === 1 ? 'row names a member' : 'rows name members'} already here (by e-mail address): left as they are.`}</p>
          )}
          {wrong > 0 && check.wouldCreate > 0 && (
            <label class="check">
              <input
                type="checkbox"
                checked={skipBadRows}
                onChange={(e) => setSkipBadRows((e.target as HTMLInputElement).checked)}
              />
              Skip the wrong rows and import the others
            </label>
          )}
        </>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={!canImport} onClick={() => void runImport()}>
          {check
            ? `Import ${check.wouldCreate} ${check.wouldCreate === 1 ? 'member' : 'members'}`
            : 'Import members'}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
