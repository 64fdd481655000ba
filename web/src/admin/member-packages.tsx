import { useEffect, useState } from 'preact/hooks';
import { useAccessPreview } from './access-preview';
import type { MemberRecord } from '../api';
import { memberName } from './admin-api';
import { Alert, errorText, FormActions, useApiCall, useList } from './form-parts';
import {
  type MemberPackage,
  type MemberPackagePreview,
  type PackageRecord,
  packagesApi,
} from './packages-api';
import './packages.css';
import { dayLabel } from './zoned';

const stateOf = (mp: MemberPackage, today: string) =>
  mp.fromDate > today ? 'starts later' : mp.untilDate !== null && mp.untilDate < today ? 'ended' : 'active';

/**
 * A member's packages on the member page: every package they held or hold (the history), give
 * one (from and until dates, with the charges it makes shown before saving), end one.
 */
export function MemberPackages({ member }: { member: MemberRecord }) {
  const { list, load, error } = useList(
    () => packagesApi.memberPackages(member.id).then((l) => l.reverse()),
    [member.id],
  );
  const [packages, setPackages] = useState<PackageRecord[]>([]);
  const [today, setToday] = useState<string | null>(null);
  const [giving, setGiving] = useState(false);
  const [ending, setEnding] = useState<number | null>(null);

  useEffect(() => {
    packagesApi
      .packages()
      .then((p) =>
        setPackages(p.filter((x) => x.state === 'active').sort((a, b) => a.name.localeCompare(b.name))),
      )
      .catch(() => {});
    void packagesApi.spaceToday(member.space).then(setToday);
  }, [member.id]);

  const name = (mp: MemberPackage) => mp._embedded?.package?.name ?? `Package ${mp.package}`;

  return (
    <section aria-labelledby="member-packages-h" class="member-packages">
      <h3 id="member-packages-h">Packages</h3>
      <Alert text={error} />
      {list?.length === 0 && (
        <p class="muted">None: {memberName(member)} may use nothing until given a package.</p>
      )}
      {list && list.length > 0 && today && (
        <table class="list" aria-label={`Packages of ${memberName(member)}`}>
          <thead>
            <tr>
              <th scope="col">Package</th>
              <th scope="col">From</th>
              <th scope="col">Until</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((mp) => {
              const state = stateOf(mp, today);
              return (
                <tr key={mp.id} aria-label={`${name(mp)} from ${mp.fromDate}`}>
                  <td data-label="Package">{name(mp)}</td>
                  <td data-label="From">{dayLabel(mp.fromDate, true)}</td>
                  <td data-label="Until">{mp.untilDate ? dayLabel(mp.untilDate, true) : 'no end'}</td>
                  <td data-label="State">{state}</td>
                  <td>
                    {state !== 'ended' &&
                      (ending === mp.id ? (
                        <EndForm
                          mp={mp}
                          name={name(mp)}
                          today={today}
                          onDone={(changed) => {
                            setEnding(null);
                            if (changed) void load();
                          }}
                        />
                      ) : (
                        <button type="button" class="secondary" onClick={() => setEnding(mp.id)}>
                          {`End ${name(mp)}`}
                        </button>
                      ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {giving && today ? (
        <GiveForm
          member={member}
          packages={packages}
          today={today}
          onDone={(changed) => {
            setGiving(false);
            if (changed) void load();
          }}
        />
      ) : (
        <button type="button" class="secondary" onClick={() => setGiving(true)}>
          {`Give ${memberName(member)} a package`}
        </button>
      )}
    </section>
  );
}

function EndForm({
  mp,
  name,
  today,
  onDone,
}: {
  mp: MemberPackage;
  name: string;
  today: string;
  onDone: (changed: boolean) => void;
}) {
  const [until, setUntil] = useState(mp.fromDate > today ? mp.fromDate : today);
  const { error, run } = useApiCall();
  const access = useAccessPreview();
  async function end(e: Event, previewed = false) {
    e.preventDefault();
    const change = {
      method: 'PUT' as const,
      path: `/members/${mp.member}/packages/${mp.id}`,
      body: { untilDate: until, lockVersion: mp.lockVersion },
    };
    if (!previewed && (await access.holds(change, () => void end(e, true)))) return;
    if (await run(() => packagesApi.endMemberPackage(mp, until))) onDone(true);
  }
  return (
    <form onSubmit={end} aria-label={`End ${name}`} class="end-form">
      <label>
        {`Last day of ${name}`}
        <input
          type="date"
          value={until}
          min={mp.fromDate}
          required
          onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
        />
      </label>
      <Alert text={error} />
      {access.panel}
      <FormActions
        submit={`End ${name} on ${until}`}
        disabled={access.waiting}
        danger
        cancel="Keep it"
        onCancel={() => onDone(false)}
      />
    </form>
  );
}

function GiveForm({
  member,
  packages,
  today,
  onDone,
}: {
  member: MemberRecord;
  packages: PackageRecord[];
  today: string;
  onDone: (changed: boolean) => void;
}) {
  const [pkg, setPkg] = useState('');
  const [from, setFrom] = useState(today);
  const [until, setUntil] = useState('');
  const [notes, setNotes] = useState('');
  const [preview, setPreview] = useState<MemberPackagePreview | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const { error, run } = useApiCall();
  const chosen = packages.find((p) => String(p.id) === pkg);

  const body = () => ({
    package: Number(pkg),
    fromDate: from,
    untilDate: until || null,
    ...(notes.trim() ? { notes: notes.trim() } : {}),
  });

  // The charges are asked again whenever the package or the dates change.
  useEffect(() => {
    setPreview(null);
    setPreviewError(null);
    if (!pkg || !from) return;
    let current = true;
    const t = setTimeout(() => {
      packagesApi
        .previewMemberPackage(member.id, body())
        .then((p) => current && setPreview(p))
        .catch((e) => current && setPreviewError(errorText(e)));
    }, 200);
    return () => {
      current = false;
      clearTimeout(t);
    };
  }, [pkg, from, until]);

  const access = useAccessPreview();
  async function give(e: Event, previewed = false) {
    e.preventDefault();
    const change = { method: 'POST' as const, path: `/members/${member.id}/packages`, body: body() };
    if (!previewed && (await access.holds(change, () => void give(e, true)))) return;
    if (await run(() => packagesApi.giveMemberPackage(member.id, body()))) onDone(true);
  }

  return (
    <form onSubmit={give} aria-label={`Give ${memberName(member)} a package`} class="sub-form">
      <h4>{`Give ${memberName(member)} a package`}</h4>
      {packages.length === 0 && <p class="muted">No active packages: create one on the Packages page.</p>}
      <label>
        Package
        <select value={pkg} onChange={(e) => setPkg((e.target as HTMLSelectElement).value)} required>
          <option value="">Choose…</option>
          {packages.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <div class="fee-row">
        <label>
          From
          <input
            type="date"
            value={from}
            required
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Until (empty: no end)
          <input
            type="date"
            value={until}
            min={from}
            onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <label>
        Notes
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={previewError} />
      {preview && chosen && (
        <section class="preview" aria-label="Charges">
          {preview.charges.length === 0 ? (
            <p>{`${chosen.name} charges nothing at its start.`}</p>
          ) : (
            <>
              <p>
                {preview.fromDate > today
                  ? `Charged on ${dayLabel(preview.fromDate, true)}:`
                  : 'Charged when you save:'}
              </p>
              <ul>
                {preview.charges.map((c) => (
                  <li key={c.description}>
                    {c.description}: <strong>{c.price}</strong>
                  </li>
                ))}
              </ul>
              <p>
                Total <strong>{preview.total}</strong>
                {chosen.recurringFee !== '0.00' &&
                  `; then ${chosen.recurringFee} each ${chosen.recurringFeePeriod}`}
              </p>
            </>
          )}
          {preview.credits.map((c, i) => (
            <p
              key={i}
            >{`Credit of ${c.amount} (${c.scope}) for the period from ${dayLabel(c.fromDate, true)}`}</p>
          ))}
        </section>
      )}
      <Alert text={error} />
      {access.panel}
      <FormActions
        submit={chosen ? `Give ${chosen.name}` : 'Give package'}
        disabled={!preview || access.waiting}
        onCancel={() => onDone(false)}
      />
    </form>
  );
}
