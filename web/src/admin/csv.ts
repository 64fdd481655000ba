/** CSV as spreadsheets read it (RFC 4180: comma, CRLF, quotes doubled), and its download. */

/**
 * Text a spreadsheet would take for a formula (=, +, -, @, tab, CR at the start) gets a leading
 * apostrophe, so a member's name or a description cannot run as a formula on an admin's machine.
 * Amounts are numbers and stay as they are (negative ones included).
 */
function textCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export type Cell = string | number | null | undefined | { amount: string };

function cell(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'object' ? value.amount : typeof value === 'number' ? String(value) : textCell(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: Cell[][]): string {
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Hands the text to the browser as a file download. */
export function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
