import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { t } from '../i18n/i18n';

/** The pieces the admin pages' forms and lists share: an error line, a call's error, buttons. */

/**
 * Which record of a list page is open in its form (`selectedId`), or that a new one is
 * (`creating`): `open(id)` opens a record, `openNew()` the empty form.
 */
export function useSelection() {
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const open = (id: number | null) => {
    setSelectedId(id);
    setCreating(false);
  };
  const openNew = () => {
    setCreating(true);
    setSelectedId(null);
  };
  return { selectedId, creating, open, openNew };
}

/** What a failed call of the API says, in words. */
export const errorText = (e: unknown) => (e as ApiError).message;

/** An error line, read out at once; nothing without a text. */
export function Alert({ text }: { text: string | null }) {
  return text ? (
    <p role="alert" class="error">
      {text}
    </p>
  ) : null;
}

/**
 * A form's or a button's call of the API: `run` clears the last error, awaits the call and keeps
 * what a failure says in `error`. It resolves true when the call succeeded.
 */
export function useApiCall() {
  const [error, setError] = useState<string | null>(null);
  async function run(call: () => Promise<unknown>): Promise<boolean> {
    setError(null);
    try {
      await call();
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    }
  }
  return { error, setError, run };
}

/**
 * A list read from the API when the component shows (again when `deps` change, and on `load()`),
 * with the error of a failed read or of `run`.
 */
export function useList<T>(read: () => Promise<T[]>, deps: unknown[] = []) {
  const [list, setList] = useState<T[] | null>(null);
  const call = useApiCall();
  const load = () =>
    read()
      .then(setList)
      .catch((e) => call.setError(errorText(e)));
  useEffect(() => {
    void load();
  }, deps);
  return { list, setList, load, ...call };
}

/** A form's submit button and the button that closes it unsaved. */
export function FormActions({
  submit,
  cancel = 'Cancel',
  onCancel,
  danger = false,
  disabled = false,
}: {
  submit: string;
  cancel?: string;
  onCancel: () => void;
  /** The submit button does what cannot be undone (ends, deletes). */
  danger?: boolean;
  disabled?: boolean;
}) {
  return (
    <div class="actions">
      <button type="submit" class={danger ? 'danger' : 'primary'} disabled={disabled}>
        {submit}
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        {cancel}
      </button>
    </div>
  );
}

/** A list's name that opens the record's form: "Laser", read out as "Edit Laser". */
export function EditLink({ name, onClick }: { name: string; onClick: () => void }) {
  return (
    <button
      type="button"
      class="link"
      aria-label={t('admin.form_parts.editWhat', { what: name })}
      onClick={onClick}
    >
      {name}
    </button>
  );
}

/** A list row's Edit and Delete buttons, read out as "Edit <what>" and "Delete <what>". */
export function EditDeleteActions({
  what,
  onEdit,
  onDelete,
}: {
  what: string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <span class="actions">
      <button
        type="button"
        class="secondary"
        aria-label={t('admin.form_parts.editWhat', { what })}
        onClick={onEdit}
      >
        {t('admin.form_parts.edit')}
      </button>
      <button
        type="button"
        class="secondary"
        aria-label={t('admin.form_parts.deleteWhat', { what })}
        onClick={onDelete}
      >
        {t('admin.form_parts.delete')}
      </button>
    </span>
  );
}
