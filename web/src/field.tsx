import type { JSX } from 'preact';

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput' | 'label'>;

/** A labelled input bound to a string state: `<Field label="Day" type="date" value={day} set={setDay} />`. */
export function Field({
  label,
  value,
  set,
  ...input
}: InputProps & { label: string; value: string; set: (v: string) => void }) {
  return (
    <label>
      {label}
      <input {...input} value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />
    </label>
  );
}
