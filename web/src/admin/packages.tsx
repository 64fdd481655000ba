import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ProposedChange, useAccessPreview } from './access-preview';
import { Field } from '../field';
import { t } from '../i18n/i18n';
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

/** "31.00 a month, setup 10.00" */
function priceText(p: PackageRecord): string {
  const fee = p.recurringFee === '0.00' ? 'Free' : `${p.recurringFee} ${periodNames[p.recurringFeePeriod]}`;
  return p.setupFee === '0.00' ? fee : `${fee}, setup ${p.setupFee}`;
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
      <h1>Packages</h1>
      <Alert text={error} />
      <div class="admin-grid">
        <section aria-labelledby="packages-h">
          <h2 id="packages-h">
            {packages ? `${shown.length} ${shown.length === 1 ? 'package' : 'packages'}` : 'Packages'}
          </h2>
          <div class="actions">
            <label class="grow">
              Show
              <select value={show} onChange={(e) => setShow((e.target as HTMLSelectElement).value as Show)}>
                <option value="active">Active packages</option>
                <option value="archived">Archived packages</option>
                <option value="all">All packages</option>
              </select>
            </label>
            <button type="button" class="primary" onClick={openNew}>
              New package
            </button>
          </div>
          {packages === null && !error && <p role="status">Loading…</p>}
          {packages && shown.length === 0 && (
            <p class="muted">
              {show === 'archived'
                ? 'No archived packages.'
                : 'No packages yet. A member needs a package that allows a door or machine before it opens for them: create one with “New package”.'}
            </p>
          )}
          {shown.length > 0 && (
            <table class="list" aria-label="Packages">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Price</th>
                  <th scope="col">Members</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((p) => (
                  <tr key={p.id} aria-selected={selectedId === p.id} aria-label={p.name}>
                    <td data-label="Name">
                      <EditLink name={p.name} onClick={() => open(p.id)} />
                    </td>
                    <td data-label="Price">{priceText(p)}</td>
                    <td data-label="Members">{p._embedded?.memberCount ?? ''}</td>
                    <td data-label="State">{p.state}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section aria-label="Package details">
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
      setNotice(pkg ? 'Saved.' : null);
      onSaved(saved);
    });
  }
  async function setState(state: 'active' | 'archived') {
    if (!pkg) return;
    await run(async () => onSaved(await packagesApi.updatePackage(pkg, { state })));
  }

  const title = pkg ? `Edit ${pkg.name}` : 'New package';
  return (
    <form onSubmit={save} aria-label={title}>
      <h2>{title}</h2>
      {pkg?.state === 'archived' && (
        <p class="notice">Archived: members who hold it keep it, but it cannot be given to anyone.</p>
      )}
      <Field label="Name" value={name} set={setName} required maxLength={200} />
      <label>
        Description (members see it)
        <textarea
          rows={2}
          value={description}
          onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <div class="fee-row">
        <Field label="Recurring fee" value={recurringFee} set={setRecurringFee} inputMode="decimal" />
        <label>
          Billing period
          <select value={period} onChange={(e) => setPeriod((e.target as HTMLSelectElement).value)}>
            <option value="day">Daily</option>
            <option value="week">Weekly</option>
            <option value="month">Monthly</option>
            <option value="year">Yearly</option>
          </select>
        </label>
        <Field label="Setup fee" value={setupFee} set={setSetupFee} inputMode="decimal" />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={prorate}
          onChange={(e) => setProrate((e.target as HTMLInputElement).checked)}
        />
        Prorate: periods follow the calendar, the first one is charged pro rata
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={allowsBooking}
          onChange={(e) => setAllowsBooking((e.target as HTMLInputElement).checked)}
        />
        Members with it may book
      </label>
      <label>
        Notes (admins only)
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={error} />
      {notice && <p role="status">{notice}</p>}
      <div class="actions">
        <button type="submit" class="primary">
          {pkg ? 'Save package' : 'Create package'}
        </button>
        {pkg && pkg.state === 'active' && (
          <button type="button" class="secondary" onClick={() => void setState('archived')}>
            {`Archive ${pkg.name}`}
          </button>
        )}
        {pkg && pkg.state === 'archived' && (
          <button type="button" class="secondary" onClick={() => void setState('active')}>
            {`Restore ${pkg.name}`}
          </button>
        )}
      </div>
    </form>
  );
}

// ---- permissions --------------------------------------------------------------------------------

const dayShort = weekdays.map((d) => d.slice(0, 3));
/** "Mon 08:00–20:00" (24:00 is midnight at the end of the day). */
const timeText = (t: PermissionTime) => `${dayShort[t.dayOfWeek - 1]} ${t.fromTime}–${t.untilTime}`;

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
      ? 'Everything'
      : p.type === 'resourceType'
        ? `Type ${types.find((t) => t.id === p.resourceType)?.name ?? p.resourceType}`
        : (resources.find((r) => r.id === p.resource)?.name ?? `Resource ${p.resource}`);
  const when = (p: PermissionRecord) =>
    p.timeType === 'always'
      ? 'at all times'
      : p.timeType === 'openingHours'
        ? 'during opening hours'
        : p.times.map(timeText).join(', ');

  return (
    <PackagePart
      pkg={pkg}
      title="Permissions"
      headingId="permissions-h"
      empty="None: this package opens nothing yet."
      read={packagesApi.permissions}
      remove={packagesApi.deletePermission}
      removal={(p) => ({ method: 'DELETE', path: `/packages/${p.package}/permissions/${p.id}` })}
      what={(p) => `permission for ${target(p)}`}
      text={(p) => (
        <>
          <strong>{target(p)}</strong>, {when(p)}
          {p.usageFeeDiscountPercent !== '0' && `, ${p.usageFeeDiscountPercent}% off use`}
          {p.bookingFeeDiscountPercent !== '0' && `, ${p.bookingFeeDiscountPercent}% off bookings`}
        </>
      )}
      add="Add permission"
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
    setTimes(times.map((t, j) => (j === i ? { ...t, ...change } : t)));

  const preview = useAccessPreview();

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
    <form onSubmit={save} aria-label={permission ? 'Edit permission' : 'New permission'} class="sub-form">
      <h4>{permission ? 'Edit permission' : 'New permission'}</h4>
      <label>
        Allows
        <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as any)}>
          <option value="everything">Everything</option>
          <option value="resourceType">A resource type</option>
          <option value="resource">A resource</option>
        </select>
      </label>
      {type === 'resourceType' && (
        <label>
          Resource type
          <select
            value={resourceType}
            onChange={(e) => setResourceType((e.target as HTMLSelectElement).value)}
            required
          >
            <option value="">Choose…</option>
            {types.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {type === 'resource' && (
        <label>
          Resource
          <select
            value={resource}
            onChange={(e) => setResource((e.target as HTMLSelectElement).value)}
            required
          >
            <option value="">Choose…</option>
            {resources.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        When
        <select value={timeType} onChange={(e) => setTimeType((e.target as HTMLSelectElement).value as any)}>
          <option value="always">At all times</option>
          <option value="openingHours">During the space’s opening hours</option>
          <option value="custom">At these times</option>
        </select>
      </label>
      {timeType === 'custom' && (
        <fieldset class="times">
          <legend>Times (an end at midnight is the end of that day)</legend>
          {times.map((t, i) => (
            <fieldset class="time-row" key={i}>
              <legend class="visually-hidden">{`Time ${i + 1}`}</legend>
              <label>
                Day
                <select
                  value={t.dayOfWeek}
                  onChange={(e) => setTime(i, { dayOfWeek: Number((e.target as HTMLSelectElement).value) })}
                >
                  {weekdays.map((d, j) => (
                    <option key={d} value={j + 1}>
                      {d}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                From
                <input
                  type="time"
                  value={t.fromTime}
                  required
                  onInput={(e) => setTime(i, { fromTime: (e.target as HTMLInputElement).value })}
                />
              </label>
              <label>
                Until
                <input
                  type="time"
                  value={toInput(t.untilTime)}
                  required
                  onInput={(e) => setTime(i, { untilTime: fromInput((e.target as HTMLInputElement).value) })}
                />
              </label>
              <button
                type="button"
                class="secondary"
                disabled={times.length === 1}
                aria-label={`Remove time ${i + 1}`}
                onClick={() => setTimes(times.filter((_, j) => j !== i))}
              >
                Remove
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
            Add time
          </button>
        </fieldset>
      )}
      <div class="fee-row">
        <Field label="Discount on use (%)" value={usage} set={setUsage} inputMode="decimal" />
        <Field label="Discount on bookings (%)" value={booking} set={setBooking} inputMode="decimal" />
      </div>
      <Alert text={error} />
      {preview.panel}
      <FormActions submit="Save permission" onCancel={() => onDone(false)} disabled={preview.waiting} />
    </form>
  );
}

// ---- credits ------------------------------------------------------------------------------------

const scopeNames: Record<string, string> = {
  global: 'for anything',
  usage: 'for machine use',
  booking: 'for bookings',
};

function Credits({ pkg }: { pkg: PackageRecord }) {
  const text = (c: CreditRecord) => `${c.amount} ${periodNames[c.period]} ${scopeNames[c.scope]}`;
  return (
    <PackagePart
      pkg={pkg}
      title="Credits"
      headingId="credits-h"
      empty="None: members pay every use and booking."
      read={packagesApi.credits}
      remove={packagesApi.deleteCredit}
      what={(c) => `credit ${text(c)}`}
      text={text}
      add="Add credit"
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
  async function save(e: Event) {
    e.preventDefault();
    const body = { amount: amount.trim(), scope, period };
    const saved = await run(() =>
      credit ? packagesApi.updateCredit(credit, body) : packagesApi.createCredit(pkg.id, body),
    );
    if (saved) onDone(true);
  }
  return (
    <form onSubmit={save} aria-label={credit ? 'Edit credit' : 'New credit'} class="sub-form">
      <h4>{credit ? 'Edit credit' : 'New credit'}</h4>
      <div class="fee-row">
        <Field label="Amount" value={amount} set={setAmount} inputMode="decimal" required />
        <label>
          Period
          <select value={period} onChange={(e) => setPeriod((e.target as HTMLSelectElement).value)}>
            <option value="once">Once</option>
            <option value="day">Every day</option>
            <option value="week">Every week</option>
            <option value="month">Every month</option>
            <option value="year">Every year</option>
          </select>
        </label>
        <label>
          Spent on
          <select value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value)}>
            <option value="global">Anything</option>
            <option value="usage">Machine use</option>
            <option value="booking">Bookings</option>
          </select>
        </label>
      </div>
      <Alert text={error} />
      <FormActions submit="Save credit" onCancel={() => onDone(false)} />
    </form>
  );
}
