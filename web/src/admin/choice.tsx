import { useState } from 'preact/hooks';

let made = 0;

/**
 * A labelled select. The label is tied by `for`, not wrapped around the select: wrapped, the
 * options' text would join the select's accessible name.
 */
export function Choice({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: [value: string, text: string][];
  onChange: (value: string) => void;
}) {
  const [id] = useState(() => `choice-${++made}`);
  return (
    <div class="choice">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
