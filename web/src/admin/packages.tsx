import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ProposedChange, useAccessPreview } from './access-preview';
import { Field } from '../field';
import { t, tOr } from '../i18n/i18n';
import {
  Alert,
  EditDeleteActions,
  EditLink,
  FormActions,
  useApiCall,
  useList,
  useSelection,
} from './form-parts';
import {
  type CreditRecord,
  type PackageRecord,
  type PermissionRecord,
  type PermissionTime,
  packagesApi,
  periodNames,
  type ResourceRecord,
  type ResourceTypeRecord,
} from './packages-api';
import './packages.css';
import { weekdays } from './zoned';

type Show = 'active' | 'archived' | 'all';

/** "a month", "once": a fee's or credit's period in the console's language. */
const periodName = (period: string) => tOr(`admin.packages.period.${period}`, periodNames[period] ?? period);

/** "31.00 a month, setup 10.00" */
function priceText(p: PackageRecord): string {
  const fee =
    p.recurringFee === '0.00'
      ? t('admin.packages.free')
      : `${p.recurringFee} ${periodName(p.recurringFeePeriod)}`;
  return p.setupFee === '0.00' ? fee : t('admin.packages.withSetup', { fee, setup: p.setupFee });
}

/** The space's resources (by name) and resource types, which packages and courses name; empty until read. */
export function useResourcesAndTypes() {
  const [resources, setResources] = useState<ResourceRecord[]>([]);
  const [types, setTypes] = useState<ResourceTypeRecord[]>([]);
  useEffect(() => {
    packagesApi
      .resources()
      .then((r) => setResources(r.sort((a, b) => a.name.localeCompare(b.name))))
      .catch(() => {});
    packagesApi
      .resourceTypes()
      .then(setTypes)
      .catch(() => {});
  }, []);
  return { resources, types };
}

/**
 * Packages: what members get (permissions and their time tables, credits) for what they pay
 * (fees, billing period, pro rata), how many members hold each; create, edit, archive.
 */
export function PackagesPage() {
  const {
    list: packages,
    setList: setPackages,
    load,
    error,
  } = useList(() => packagesApi.packages().then((list) => list.sort((a, b) => a.name.localeCompare(b.name))));
  const [show, setShow] = useState<Show>('active');
  const { selectedId, creating, open, openNew } = useSelection();
  const { resources, types } = useResourcesAndTypes();

  const shown = (packages ?? []).filter((p) => show === 'all' || p.state === show);
  const selected = packages?.find((p) => p.id === selectedId) ?? null;
  const saved = (p: PackageRecord) => {
    open(p.id);
    setPackages((all) => (all ?? []).map((x) => (x.id === p.id ? { ...p, _embedded: x._embedded } : x)));
    void load();
  };

  return (
    <main class="admin packages-page">
      <h1>{t('admin.packages.title')}</h1>
      <Alert text={error} />
      <div class="admin-grid">
        <section aria-labelledby="packages-h">
          <h2 id="packages-h">
            {packages ? t('admin.packages.count', { count: shown.length }) : t('admin.packages.title')}
          </h2>
          <div class="actions">
            <label class="grow">
              {t('admin.packages.show')}
              <select value={show} onChange={(e) => setShow((e.target as HTMLSelectElement).value as Show)}>
                <option value="active">{t('admin.packages.showActive')}</option>
                <option value="archived">{t('admin.packages.showArchived')}</option>
                <option value="all">{t('admin.packages.showAll')}</option>
              </select>
            </label>
            <button type="button" class="primary" onClick={openNew}>
              {t('admin.packages.newPackage')}
            </button>
          </div>
          {packages === null && !error && <p role="status">{t('admin.dashboard.loading')}</p>}
          {packages && shown.length === 0 && (
            <p class="muted">
              {show === 'archived' ? t('admin.packages.noArchived') : t('admin.packages.noneYet')}
            </p>
          )}
          {shown.length > 0 && (
            <table class="list" aria-label={t('admin.packages.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('admin.packages.name')}</th>
                  <th scope="col">{t('admin.packages.price')}</th>
                  <th scope="col">{t('admin.packages.members')}</th>
                  <th scope="col">{t('admin.packages.state')}</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((p) => (
                  <tr key={p.id} aria-selected={selectedId === p.id} aria-label={p.name}>
                    <td data-label={t('admin.packages.name')}>
                      <EditLink name={p.name} onClick={() => open(p.id)} />
                    </td>
                    <td data-label={t('admin.packages.price')}>{priceText(p)}</td>
                    <td data-label={t('admin.packages.members')}>{p._embedded?.memberCount ?? ''}</td>
                    <td data-label={t('admin.packages.state')}>
                      {tOr(`admin.packages.packageState.${p.state}`, p.state)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-label={t('admin.packages.details')}>
          {creating && <PackageForm pkg={null} onSaved={saved} />}
          {selected && !creating && (
            <div key={selected.id}>
              <PackageForm pkg={selected} onSaved={saved} />
              <Permissions pkg={selected} resources={resources} types={types} />
              <Credits pkg={selected} />
            </div>
          )}
        </section>
      </div>
    </main>
  );
}

function PackageForm({ pkg, onSaved }: { pkg: PackageRecord | null; onSaved: (p: PackageRecord) => void }) {
  const [name, setName] = useState(pkg?.name ?? '');
  const [description, setDescription] = useState(pkg?.description ?? '');
  const [notes, setNotes] = useState(pkg?.notes ?? '');
  const [recurringFee, setRecurringFee] = useState(pkg?.recurringFee ?? '0.00');
  const [period, setPeriod] = useState<string>(pkg?.recurringFeePeriod ?? 'month');
  const [setupFee, setSetupFee] = useState(pkg?.setupFee ?? '0.00');
  const [prorate, setProrate] = useState(pkg?.prorate ?? false);
  const [allowsBooking, setAllowsBooking] = useState(pkg?.allowsBooking ?? true);
  const { error, run } = useApiCall();
  const [notice, setNotice] = useState<string | null>(null);

  async function save(e: Event) {
    e.preventDefault();
    setNotice(null);
    const body = {
      name: name.trim(),
      description: description.trim() || null,
      notes: notes.trim() || null,
      recurringFee: recurringFee.trim() || '0',
      recurringFeePeriod: period,
      setupFee: setupFee.trim() || '0',
      prorate,
      allowsBooking,
    };
    await run(async () => {
      const saved = pkg ? await packagesApi.updatePackage(pkg, body) : await packagesApi.createPackage(body);
      setNotice(pkg ? t('admin.packages.saved') : null);
      onSaved(saved);
    });
  }
  async function setState(state: 'active' | 'archived') {
    if (!pkg) return;
    await run(async () => onSaved(await packagesApi.updatePackage(pkg, { state })));
  }

  const title = pkg ? t('admin.packages.edit', { name: pkg.name }) : t('admin.packages.newPackage');
  return (
    <form onSubmit={save} aria-label={title}>
      <h2>{title}</h2>
      {pkg?.state === 'archived' && <p class="notice">{t('admin.packages.archivedNotice')}</p>}
      <Field label={t('admin.packages.name')} value={name} set={setName} required maxLength={200} />
      <label>
        {t('admin.packages.description')}
        <textarea
          rows={2}
          value={description}
          onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <div class="fee-row">
        <Field
          label={t('admin.packages.recurringFee')}
          value={recurringFee}
          set={setRecurringFee}
          inputMode="decimal"
        />
        <label>
          {t('admin.packages.billingPeriod')}
          <select value={period} onChange={(e) => setPeriod((e.target as HTMLSelectElement).value)}>
            <option value="day">{t('admin.packages.daily')}</option>
            <option value="week">{t('admin.packages.weekly')}</option>
            <option value="month">{t('admin.packages.monthly')}</option>
            <option value="year">{t('admin.packages.yearly')}</option>
          </select>
        </label>
        <Field label={t('admin.packages.setupFee')} value={setupFee} set={setSetupFee} inputMode="decimal" />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={prorate}
          onChange={(e) => setProrate((e.target as HTMLInputElement).checked)}
        />
        {t('admin.packages.prorate')}
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={allowsBooking}
          onChange={(e) => setAllowsBooking((e.target as HTMLInputElement).checked)}
        />
        {t('admin.packages.allowsBooking')}
      </label>
      <label>
        {t('admin.packages.notes')}
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={error} />
      {notice && <p role="status">{notice}</p>}
      <div class="actions">
        <button type="submit" class="primary">
          {pkg ? t('admin.packages.save') : t('admin.packages.create')}
        </button>
        {pkg && pkg.state === 'active' && (
          <button type="button" class="secondary" onClick={() => void setState('archived')}>
            {t('admin.packages.archive', { name: pkg.name })}
          </button>
        )}
        {pkg && pkg.state === 'archived' && (
          <button type="button" class="secondary" onClick={() => void setState('active')}>
            {t('admin.packages.restore', { name: pkg.name })}
          </button>
        )}
      </div>
    </form>
  );
}

// ---- permissions --------------------------------------------------------------------------------

const dayShort = (day: number) =>
  t(`admin.access_preview.dayShort.${day}` as 'admin.access_preview.dayShort.1');
const dayName = (day: number) => t(`admin.spaces.weekday.${day}` as 'admin.spaces.weekday.1');
/** "Mon 08:00–20:00" (24:00 is midnight at the end of the day). */
const timeText = (time: PermissionTime) => `${dayShort(time.dayOfWeek)} ${time.fromTime}–${time.untilTime}`;

function Permissions({
  pkg,
  resources,
  types,
}: {
  pkg: PackageRecord;
  resources: ResourceRecord[];
  types: ResourceTypeRecord[];
}) {
  const target = (p: PermissionRecord) =>
    p.type === 'everything'
      ? t('admin.packages.everything')
      : p.type === 'resourceType'
        ? t('admin.packages.typeTarget', {
            name: types.find((type) => type.id === p.resourceType)?.name ?? p.resourceType,
          })
        : (resources.find((r) => r.id === p.resource)?.name ??
          t('admin.packages.resourceTarget', { id: p.resource }));
  const when = (p: PermissionRecord) =>
    p.timeType === 'always'
      ? t('admin.packages.always')
      : p.timeType === 'openingHours'
        ? t('admin.packages.openingHours')
        : p.times.map(timeText).join(', ');

  return (
    <PackagePart
      pkg={pkg}
      title={t('admin.packages.permissions')}
      headingId="permissions-h"
      empty={t('admin.packages.permissionsEmpty')}
      read={packagesApi.permissions}
      remove={packagesApi.deletePermission}
      removal={(p) => ({ method: 'DELETE', path: `/packages/${p.package}/permissions/${p.id}` })}
      what={(p) => t('admin.packages.permissionFor', { target: target(p) })}
      text={(p) => (
        <>
          <strong>{target(p)}</strong>, {when(p)}
          {p.usageFeeDiscountPercent !== '0' &&
            t('admin.packages.usageOff', { percent: p.usageFeeDiscountPercent })}
          {p.bookingFeeDiscountPercent !== '0' &&
            t('admin.packages.bookingOff', { percent: p.bookingFeeDiscountPercent })}
        </>
      )}
      add={t('admin.packages.addPermission')}
      form={(permission, onDone) => (
        <PermissionForm
          key={permission?.id ?? 'new'}
          pkg={pkg}
          permission={permission}
          resources={resources}
          types={types}
          onDone={onDone}
        />
      )}
    />
  );
}

/**
 * A part of a package (its permissions, its credits): a list whose rows are edited and deleted
 * one by one, and the form of the row being edited or added.
 */
function PackagePart<T extends { id: number }>({
  pkg,
  title,
  headingId,
  empty,
  read,
  remove,
  removal,
  what,
  text,
  add,
  form,
}: {
  pkg: PackageRecord;
  title: string;
  headingId: string;
  empty: string;
  read: (pkg: number) => Promise<T[]>;
  remove: (row: T) => Promise<unknown>;
  /** The request a row's delete makes, when it can change who may use what (asked first). */
  removal?: (row: T) => ProposedChange;
  /** What the row's buttons name: "permission for Laser". */
  what: (row: T) => string;
  text: (row: T) => JSX.Element | string;
  add: string;
  form: (row: T | null, onDone: (changed: boolean) => void) => JSX.Element;
}) {
  const { list, load, error, run } = useList(() => read(pkg.id), [pkg.id]);
  const [editing, setEditing] = useState<T | 'new' | null>(null);
  const preview = useAccessPreview();

  async function removeRow(row: T, previewed = false) {
    const change = removal?.(row);
    if (
      change &&
      !previewed &&
      (await preview.holds(change, () => void removeRow(row, true), t('admin.access_preview.deleteAnyway')))
    )
      return;
    if (await run(() => remove(row))) void load();
  }

  return (
    <section aria-labelledby={headingId} class="package-part">
      <h3 id={headingId}>{title}</h3>
      {list?.length === 0 && <p class="muted">{empty}</p>}
      <ul class="rows">
        {(list ?? []).map((row) => (
          <li key={row.id}>
            <span>{text(row)}</span>
            <EditDeleteActions
              what={what(row)}
              onEdit={() => setEditing(row)}
              onDelete={() => removeRow(row)}
            />
          </li>
        ))}
      </ul>
      {preview.panel}
      <Alert text={error} />
      {editing ? (
        form(editing === 'new' ? null : editing, (changed) => {
          setEditing(null);
          if (changed) void load();
        })
      ) : (
        <button type="button" class="secondary" onClick={() => setEditing('new')}>
          {add}
        </button>
      )}
    </section>
  );
}

/** The API's 24:00 (end of day) is 00:00 in a time input, and back. */
const toInput = (t: string) => (t === '24:00' ? '00:00' : t);
const fromInput = (t: string) => (t === '00:00' ? '24:00' : t);

function PermissionForm({
  pkg,
  permission,
  resources,
  types,
  onDone,
}: {
  pkg: PackageRecord;
  permission: PermissionRecord | null;
  resources: ResourceRecord[];
  types: ResourceTypeRecord[];
  onDone: (changed: boolean) => void;
}) {
  const [type, setType] = useState<PermissionRecord['type']>(permission?.type ?? 'everything');
  const [resourceType, setResourceType] = useState(String(permission?.resourceType ?? ''));
  const [resource, setResource] = useState(String(permission?.resource ?? ''));
  const [timeType, setTimeType] = useState<PermissionRecord['timeType']>(permission?.timeType ?? 'always');
  const [times, setTimes] = useState<PermissionTime[]>(
    permission?.times.length ? permission.times : [{ dayOfWeek: 1, fromTime: '09:00', untilTime: '18:00' }],
  );
  const [usage, setUsage] = useState(permission?.usageFeeDiscountPercent ?? '0');
  const [booking, setBooking] = useState(permission?.bookingFeeDiscountPercent ?? '0');
  const { error, run } = useApiCall();

  const setTime = (i: number, change: Partial<PermissionTime>) =>
    setTimes(times.map((time, j) => (j === i ? { ...time, ...change } : time)));

  const preview = useAccessPreview();
  const heading = permission ? t('admin.packages.editPermission') : t('admin.packages.newPermission');

  async function save(e: Event, previewed = false) {
    e.preventDefault();
    const body: Record<string, unknown> = {
      type,
      resourceType: type === 'resourceType' ? Number(resourceType) || null : null,
      resource: type === 'resource' ? Number(resource) || null : null,
      timeType,
      times: timeType === 'custom' ? times : [],
      usageFeeDiscountPercent: usage.trim() || '0',
      bookingFeeDiscountPercent: booking.trim() || '0',
    };
    const change = permission
      ? {
          method: 'PUT' as const,
          path: `/packages/${pkg.id}/permissions/${permission.id}`,
          body: { ...body, lockVersion: permission.lockVersion },
        }
      : { method: 'POST' as const, path: `/packages/${pkg.id}/permissions`, body };
    if (!previewed && (await preview.holds(change, () => void save(e, true)))) return;
    const saved = await run(() =>
      permission
        ? packagesApi.updatePermission(permission, body)
        : packagesApi.createPermission(pkg.id, body),
    );
    if (saved) onDone(true);
  }

  return (
    <form onSubmit={save} aria-label={heading} class="sub-form">
      <h4>{heading}</h4>
      <label>
        {t('admin.packages.allows')}
        <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as any)}>
          <option value="everything">{t('admin.packages.everything')}</option>
          <option value="resourceType">{t('admin.packages.optType')}</option>
          <option value="resource">{t('admin.packages.optResource')}</option>
        </select>
      </label>
      {type === 'resourceType' && (
        <label>
          {t('admin.packages.resourceType')}
          <select
            value={resourceType}
            onChange={(e) => setResourceType((e.target as HTMLSelectElement).value)}
            required
          >
            <option value="">{t('admin.packages.choose')}</option>
            {types.map((type) => (
              <option key={type.id} value={type.id}>
                {type.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {type === 'resource' && (
        <label>
          {t('admin.packages.resource')}
          <select
            value={resource}
            onChange={(e) => setResource((e.target as HTMLSelectElement).value)}
            required
          >
            <option value="">{t('admin.packages.choose')}</option>
            {resources.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        {t('admin.packages.when')}
        <select value={timeType} onChange={(e) => setTimeType((e.target as HTMLSelectElement).value as any)}>
          <option value="always">{t('admin.packages.atAllTimes')}</option>
          <option value="openingHours">{t('admin.packages.duringOpening')}</option>
          <option value="custom">{t('admin.packages.atTheseTimes')}</option>
        </select>
      </label>
      {timeType === 'custom' && (
        <fieldset class="times">
          <legend>{t('admin.packages.times')}</legend>
          {times.map((time, i) => (
            <fieldset class="time-row" key={i}>
              <legend class="visually-hidden">{t('admin.packages.timeN', { n: i + 1 })}</legend>
              <label>
                {t('admin.packages.day')}
                <select
                  value={time.dayOfWeek}
                  onChange={(e) => setTime(i, { dayOfWeek: Number((e.target as HTMLSelectElement).value) })}
                >
                  {weekdays.map((d, j) => (
                    <option key={d} value={j + 1}>
                      {dayName(j + 1)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                {t('admin.packages.from')}
                <input
                  type="time"
                  value={time.fromTime}
                  required
                  onInput={(e) => setTime(i, { fromTime: (e.target as HTMLInputElement).value })}
                />
              </label>
              <label>
                {t('admin.packages.until')}
                <input
                  type="time"
                  value={toInput(time.untilTime)}
                  required
                  onInput={(e) => setTime(i, { untilTime: fromInput((e.target as HTMLInputElement).value) })}
                />
              </label>
              <button
                type="button"
                class="secondary"
                disabled={times.length === 1}
                aria-label={t('admin.packages.removeTime', { n: i + 1 })}
                onClick={() => setTimes(times.filter((_, j) => j !== i))}
              >
                {t('admin.packages.remove')}
              </button>
            </fieldset>
          ))}
          <button
            type="button"
            class="secondary"
            onClick={() =>
              setTimes([
                ...times,
                {
                  ...(times.at(-1) ?? { fromTime: '09:00', untilTime: '18:00' }),
                  dayOfWeek: ((times.at(-1)?.dayOfWeek ?? 0) % 7) + 1,
                },
              ])
            }
          >
            {t('admin.packages.addTime')}
          </button>
        </fieldset>
      )}
      <div class="fee-row">
        <Field label={t('admin.packages.usageDiscount')} value={usage} set={setUsage} inputMode="decimal" />
        <Field
          label={t('admin.packages.bookingDiscount')}
          value={booking}
          set={setBooking}
          inputMode="decimal"
        />
      </div>
      <Alert text={error} />
      {preview.panel}
      <FormActions
        submit={t('admin.packages.savePermission')}
        onCancel={() => onDone(false)}
        disabled={preview.waiting}
      />
    </form>
  );
}

// ---- credits ------------------------------------------------------------------------------------

/** "for anything", "for machine use", "for bookings": what a credit is spent on. */
const scopeName = (scope: string) => tOr(`admin.packages.scope.${scope}`, scope);

function Credits({ pkg }: { pkg: PackageRecord }) {
  const text = (c: CreditRecord) => `${c.amount} ${periodName(c.period)} ${scopeName(c.scope)}`;
  return (
    <PackagePart
      pkg={pkg}
      title={t('admin.packages.credits')}
      headingId="credits-h"
      empty={t('admin.packages.creditsEmpty')}
      read={packagesApi.credits}
      remove={packagesApi.deleteCredit}
      what={(c) => t('admin.packages.creditWhat', { text: text(c) })}
      text={text}
      add={t('admin.packages.addCredit')}
      form={(credit, onDone) => (
        <CreditForm key={credit?.id ?? 'new'} pkg={pkg} credit={credit} onDone={onDone} />
      )}
    />
  );
}

function CreditForm({
  pkg,
  credit,
  onDone,
}: {
  pkg: PackageRecord;
  credit: CreditRecord | null;
  onDone: (changed: boolean) => void;
}) {
  const [amount, setAmount] = useState(credit?.amount ?? '');
  const [scope, setScope] = useState<string>(credit?.scope ?? 'global');
  const [period, setPeriod] = useState<string>(credit?.period ?? 'month');
  const { error, run } = useApiCall();
  const heading = credit ? t('admin.packages.editCredit') : t('admin.packages.newCredit');
  async function save(e: Event) {
    e.preventDefault();
    const body = { amount: amount.trim(), scope, period };
    const saved = await run(() =>
      credit ? packagesApi.updateCredit(credit, body) : packagesApi.createCredit(pkg.id, body),
    );
    if (saved) onDone(true);
  }
  return (
    <form onSubmit={save} aria-label={heading} class="sub-form">
      <h4>{heading}</h4>
      <div class="fee-row">
        <Field
          label={t('admin.packages.amount')}
          value={amount}
          set={setAmount}
          inputMode="decimal"
          required
        />
        <label>
          {t('admin.packages.periodLabel')}
          <select value={period} onChange={(e) => setPeriod((e.target as HTMLSelectElement).value)}>
            <option value="once">{t('admin.packages.once')}</option>
            <option value="day">{t('admin.packages.everyDay')}</option>
            <option value="week">{t('admin.packages.everyWeek')}</option>
            <option value="month">{t('admin.packages.everyMonth')}</option>
            <option value="year">{t('admin.packages.everyYear')}</option>
          </select>
        </label>
        <label>
          {t('admin.packages.spentOn')}
          <select value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value)}>
            <option value="global">{t('admin.packages.anything')}</option>
            <option value="usage">{t('admin.packages.machineUse')}</option>
            <option value="booking">{t('admin.packages.bookings')}</option>
          </select>
        </label>
      </div>
      <Alert text={error} />
      <FormActions submit={t('admin.packages.saveCredit')} onCancel={() => onDone(false)} />
    </form>
  );
}
