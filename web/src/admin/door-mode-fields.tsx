import { useState } from 'preact/hooks';
import { type ApiError, call } from '../api';
import { dateTime } from '../format';
import { t } from '../i18n/i18n';

/** How a door is held unlocked; each mode's words are `admin.door_mode_fields.mode.<mode>`. */
const modes = ['normal', 'openingHours', 'firstIn'] as const;

/**
 * A door's presence and unlock fields on the resource form: whether it is an entrance (taps
 * check members in and out), how it is held unlocked, and "Lock now" for a held door.
 */
export function DoorModeFields(props: {
  resourceId: number | null;
  entrance: boolean;
  unlockMode: string;
  setEntrance: (on: boolean) => void;
  setUnlockMode: (mode: string) => void;
}) {
  const [notice, setNotice] = useState<string | null>(null);
  async function lockNow() {
    setNotice(null);
    try {
      const { lockedUntil } = await call<{ lockedUntil: string | null }>(
        'POST',
        `/resources/${props.resourceId}/lock-now`,
      );
      setNotice(
        lockedUntil
          ? t('admin.door_mode_fields.lockedUntil', { time: dateTime(lockedUntil) })
          : t('admin.door_mode_fields.notHeldOpen'),
      );
    } catch (err) {
      setNotice((err as ApiError).message);
    }
  }
  return (
    <fieldset class="flags">
      <legend>{t('admin.door_mode_fields.door')}</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={props.entrance}
          onChange={(e) => props.setEntrance((e.target as HTMLInputElement).checked)}
        />{' '}
        {t('admin.door_mode_fields.entrance')}
      </label>
      <label>
        {t('admin.door_mode_fields.unlocking')}
        <select
          value={props.unlockMode}
          onChange={(e) => props.setUnlockMode((e.target as HTMLSelectElement).value)}
        >
          {modes.map((mode) => (
            <option key={mode} value={mode}>
              {t(`admin.door_mode_fields.mode.${mode}`)}
            </option>
          ))}
        </select>
      </label>
      {props.resourceId !== null && props.unlockMode !== 'normal' && (
        <button type="button" onClick={lockNow}>
          {t('admin.door_mode_fields.lockNowUntilThe')}
        </button>
      )}
      {notice && <p role="status">{notice}</p>}
    </fieldset>
  );
}
