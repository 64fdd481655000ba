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
import { t, tOr } from '../i18n/i18n';

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

  const name = (mp: MemberPackage) => mp._embedded?.package?.name ?? t('common.package', { id: mp.package });

  return (
    <section aria-labelledby="member-packages-h" class="member-packages">
      <h3 id="member-packages-h">{t('admin.member_packages.packages')}</h3>
      <Alert text={error} />
      {list?.length === 0 && (
        <p class="muted">{t('admin.member_packages.none', { name: memberName(member) })}</p>
      )}
      {list && list.length > 0 && today && (
        <table class="list" aria-label={t('admin.member_packages.packagesOf', { name: memberName(member) })}>
          <thead>
            <tr>
              <th scope="col">{t('admin.member_packages.package')}</th>
              <th scope="col">{t('admin.member_packages.from')}</th>
              <th scope="col">{t('admin.member_packages.until')}</th>
              <th scope="col">{t('admin.member_packages.state')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('admin.member_packages.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((mp) => {
              const state = stateOf(mp, today);
              return (
                <tr
                  key={mp.id}
                  aria-label={t('admin.member_packages.rowLabel', { name: name(mp), from: mp.fromDate })}
                >
                  <td data-label={t('admin.member_packages.package')}>{name(mp)}</td>
                  <td data-label={t('admin.member_packages.from')}>{dayLabel(mp.fromDate, true)}</td>
                  <td data-label={t('admin.member_packages.until')}>
                    {mp.untilDate ? dayLabel(mp.untilDate, true) : t('admin.member_packages.noEnd')}
                  </td>
                  <td data-label={t('admin.member_packages.state')}>
                    {tOr(`admin.member_packages.stateName.${state}`, state)}
                  </td>
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
                          {t('admin.member_packages.end', { name: name(mp) })}
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
          {t('admin.member_packages.give', { name: memberName(member) })}
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
    <form onSubmit={end} aria-label={t('admin.member_packages.end', { name })} class="end-form">
      <label>
        {t('admin.member_packages.lastDay', { name })}
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
        submit={t('admin.member_packages.endOn', { name, until })}
        disabled={access.waiting}
        danger
        cancel={t('admin.member_packages.keepIt')}
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
    <form
      onSubmit={give}
      aria-label={t('admin.member_packages.give', { name: memberName(member) })}
      class="sub-form"
    >
      <h4>{t('admin.member_packages.give', { name: memberName(member) })}</h4>
      {packages.length === 0 && <p class="muted">{t('admin.member_packages.noActivePackagesCreate')}</p>}
      <label>
        {t('admin.member_packages.package')}
        <select value={pkg} onChange={(e) => setPkg((e.target as HTMLSelectElement).value)} required>
          <option value="">{t('admin.member_packages.choose')}</option>
          {packages.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <div class="fee-row">
        <label>
          {t('admin.member_packages.from')}
          <input
            type="date"
            value={from}
            required
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          {t('admin.member_packages.untilEmpty')}
          <input
            type="date"
            value={until}
            min={from}
            onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <label>
        {t('admin.member_trainings.notes')}
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={previewError} />
      {preview && chosen && (
        <section class="preview" aria-label={t('admin.member_packages.charges')}>
          {preview.charges.length === 0 ? (
            <p>{t('admin.member_packages.chargesNothing', { name: chosen.name })}</p>
          ) : (
            <>
              <p>
                {preview.fromDate > today
                  ? t('admin.member_packages.chargedOn', { day: dayLabel(preview.fromDate, true) })
                  : t('admin.member_packages.chargedNow')}
              </p>
              <ul>
                {preview.charges.map((c) => (
                  <li key={c.description}>
                    {c.description}: <strong>{c.price}</strong>
                  </li>
                ))}
              </ul>
              <p>
                {t('admin.member_packages.total')} <strong>{preview.total}</strong>
                {chosen.recurringFee !== '0.00' &&
                  t('admin.member_packages.thenEach', {
                    fee: chosen.recurringFee,
                    period: tOr(`join.period.${chosen.recurringFeePeriod}`, chosen.recurringFeePeriod),
                  })}
              </p>
            </>
          )}
          {preview.credits.map((c, i) => (
            <p key={i}>
              {t('admin.member_packages.credit', {
                amount: c.amount,
                scope: c.scope,
                day: dayLabel(c.fromDate, true),
              })}
            </p>
          ))}
        </section>
      )}
      <Alert text={error} />
      {access.panel}
      <FormActions
        submit={
          chosen
            ? t('admin.member_packages.giveName', { name: chosen.name })
            : t('admin.member_packages.givePackage')
        }
        disabled={!preview || access.waiting}
        onCancel={() => onDone(false)}
      />
    </form>
  );
}
